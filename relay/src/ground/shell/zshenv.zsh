# wterm: the relay starts zsh with ZDOTDIR pointing here, so that zsh reads these files; each
# reads the user's own file of the same name (from their ZDOTDIR, else HOME) with ZDOTDIR set
# as the user had it, then points ZDOTDIR back here for the next one. .zshrc installs the
# integration; the last file read gives ZDOTDIR back for good. The user's files are never
# changed.
typeset -g __wterm_si_zd=$ZDOTDIR
typeset -g __wterm_si_dir=${ZDOTDIR:h}
# The user's ZDOTDIR as the relay (or the shell that exec'd this one) found it; empty: unset.
typeset -g __wterm_si_user_zd=${WTERM_ZDOTDIR-}
builtin unset WTERM_ZDOTDIR
typeset -g __wterm_si_exec=${WTERM_SI_EXEC-}
builtin unset WTERM_SI_EXEC
if [[ -n $__wterm_si_user_zd ]]; then builtin export ZDOTDIR=$__wterm_si_user_zd; else builtin unset ZDOTDIR; fi
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then builtin source ${ZDOTDIR:-$HOME}/.zshenv; fi
__wterm_si_user_zd=${ZDOTDIR-}
if [[ -o interactive ]]; then
  ZDOTDIR=$__wterm_si_zd
else
  builtin unset __wterm_si_zd __wterm_si_dir __wterm_si_user_zd __wterm_si_exec
fi
