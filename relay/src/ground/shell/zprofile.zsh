# wterm: see .zshenv here.
if [[ -n $__wterm_si_user_zd ]]; then builtin export ZDOTDIR=$__wterm_si_user_zd; else builtin unset ZDOTDIR; fi
if [[ -r ${ZDOTDIR:-$HOME}/.zprofile ]]; then builtin source ${ZDOTDIR:-$HOME}/.zprofile; fi
__wterm_si_user_zd=${ZDOTDIR-}
ZDOTDIR=$__wterm_si_zd
