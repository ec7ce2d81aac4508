# wterm: see .zshenv here. The last file a login shell reads: ZDOTDIR goes back to the user's.
if [[ -n $__wterm_si_user_zd ]]; then builtin export ZDOTDIR=$__wterm_si_user_zd; else builtin unset ZDOTDIR; fi
if [[ -r ${ZDOTDIR:-$HOME}/.zlogin ]]; then builtin source ${ZDOTDIR:-$HOME}/.zlogin; fi
builtin unset __wterm_si_zd __wterm_si_user_zd __wterm_si_exec
