# wterm: run from PROMPT_COMMAND by a bash that replaced (`exec bash`) a shell with the
# integration: takes back what that shell put in the environment, then installs the
# integration in this one.
builtin printf -v __wterm_si_boot '. %q' "${BASH_SOURCE[0]}"
builtin export -n PROMPT_COMMAND
PROMPT_COMMAND=${PROMPT_COMMAND//"$__wterm_si_boot"/}
PROMPT_COMMAND=${PROMPT_COMMAND#"${PROMPT_COMMAND%%[!;[:space:]]*}"}
if [[ -n ${WTERM_ZDOTDIR-} ]]; then export ZDOTDIR=$WTERM_ZDOTDIR; else unset ZDOTDIR; fi
if [[ -n ${WTERM_XDG_DATA_DIRS-} ]]; then
    export XDG_DATA_DIRS=$WTERM_XDG_DATA_DIRS
else
    unset XDG_DATA_DIRS
fi
unset WTERM_ZDOTDIR WTERM_XDG_DATA_DIRS
if [[ -n ${WTERM_SI_EXEC-} && -z ${__wterm_si_loaded-} ]]; then
    unset WTERM_SI_EXEC
    # The `exec` that started this shell is over.
    builtin printf '\e]133;D;0\a'
    __wterm_si_dir=${BASH_SOURCE[0]%/*}
    . "$__wterm_si_dir/wterm.bash"
    __wterm_si_precmd 0
fi
unset WTERM_SI_EXEC
