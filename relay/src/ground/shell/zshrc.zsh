# wterm: see .zshenv here. Reads the user's .zshrc, then installs the integration.
if [[ -n $__wterm_si_user_zd ]]; then builtin export ZDOTDIR=$__wterm_si_user_zd; else builtin unset ZDOTDIR; fi
if [[ -r ${ZDOTDIR:-$HOME}/.zshrc ]]; then builtin source ${ZDOTDIR:-$HOME}/.zshrc; fi
__wterm_si_user_zd=${ZDOTDIR-}
if [[ -n ${PROMPT_COMMAND-} && $PROMPT_COMMAND == *bash-exec.bash ]]; then
  builtin unset PROMPT_COMMAND
fi
if [[ -n ${WTERM_XDG_DATA_DIRS+x} ]]; then
  if [[ -n $WTERM_XDG_DATA_DIRS ]]; then builtin export XDG_DATA_DIRS=$WTERM_XDG_DATA_DIRS; else builtin unset XDG_DATA_DIRS; fi
  builtin unset WTERM_XDG_DATA_DIRS
fi
# The `exec` that started this shell is over.
[[ -n $__wterm_si_exec ]] && builtin printf '\e]133;D;0\a'
builtin source $__wterm_si_dir/zsh/wterm.zsh
if [[ -o login ]]; then
  ZDOTDIR=$__wterm_si_zd
else
  if [[ -n $__wterm_si_user_zd ]]; then builtin export ZDOTDIR=$__wterm_si_user_zd; else builtin unset ZDOTDIR; fi
  builtin unset __wterm_si_zd __wterm_si_user_zd __wterm_si_exec
fi
