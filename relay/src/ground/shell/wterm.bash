# wterm shell integration for bash (4.4 or later; tested with 5.x).
#
# Reports to the terminal: the prompt's start and end (OSC 133;A and 133;B), the command line
# (OSC 633;E;<text>, `\` as `\\`, `;` and bytes below 0x20 as \xHH), the command's start
# (133;C), its end with its exit code (133;D;<code>) and the working directory
# (OSC 7 file://host/path). Source it at the end of ~/.bashrc:
#
#     source /path/to/wterm.bash
#
# It keeps PROMPT_COMMAND (string or array), PS1 and PS0, works with and without bash-preexec,
# sets no DEBUG trap (the command start is marked from PS0), and runs under `set -u`.

[[ $- == *i* ]] || return 0
[[ -z ${__wterm_si_loaded-} ]] || return 0
__wterm_si_loaded=1

# The prompt command number (\#) at the last prompt: it grows only when a command line ran,
# so an empty line or Ctrl-C at the prompt reports no command end.
__wterm_si_cmdno=
__wterm_si_histcmd=
__wterm_si_cwd=
__wterm_si_osc7=
__wterm_si_a=$'\\[\e]133;A\a\\]'
__wterm_si_b=$'\\[\e]133;B\a\\]'
__wterm_si_ps0='$(__wterm_si_ps0)'

__wterm_si_escape() {
    # Sets __wterm_si_r to $1 escaped for OSC 633;E.
    local s=${1//\\/\\\\} i hex ch
    s=${s//;/\\x3b}
    if [[ $s == *[[:cntrl:]]* ]]; then
        for ((i = 1; i < 32; i++)); do
            printf -v hex '%02x' "$i"
            printf -v ch "\\x$hex"
            s=${s//"$ch"/\\x$hex}
        done
    fi
    __wterm_si_r=$s
}

__wterm_si_urlpath() {
    # Sets __wterm_si_r to $1 percent-encoded byte by byte (RFC 3986 unreserved characters and / kept).
    local LC_ALL=C s=$1 out= c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
        [a-zA-Z0-9/._~-]) out+=$c ;;
        *) printf -v c '%%%02X' "'$c"; out+=$c ;;
        esac
    done
    __wterm_si_r=$out
}

__wterm_si_ps0() {
    # Runs in PS0's command substitution (a subshell), once per command line that runs. The
    # text comes from the history list, and only when this line was added to it (HISTCONTROL
    # or `set +o history` may leave it out; then no text is reported rather than a wrong one).
    if [[ -n ${HISTCMD-} && $HISTCMD != "${__wterm_si_histcmd-}" ]]; then
        local line
        line=$(HISTTIMEFORMAT= builtin history 1)
        line=${line#*[0-9][ *]}
        line=${line#" "}
        __wterm_si_escape "$line"
        builtin printf '\e]633;E;%s\a' "$__wterm_si_r"
    fi
    builtin printf '\e]133;C\a'
}

__wterm_si_precmd() {
    # First of the prompt commands: reports the end of the command line that ran (with $?),
    # and the working directory. Gives $? back to the prompt commands that follow.
    local status=${1:-$?} n='\#'
    n=${n@P}
    if [[ -n $__wterm_si_cmdno && $n != "$__wterm_si_cmdno" ]]; then
        builtin printf '\e]133;D;%s\a' "$status"
    fi
    __wterm_si_cmdno=$n
    __wterm_si_histcmd=${HISTCMD-}
    if [[ $PWD != "$__wterm_si_cwd" ]]; then
        __wterm_si_cwd=$PWD
        __wterm_si_urlpath "$PWD"
        __wterm_si_osc7=$'\e]7;file://'"${HOSTNAME-}$__wterm_si_r"$'\a'
    fi
    builtin printf '%s' "$__wterm_si_osc7"
    return "$status"
}

__wterm_si_prompt() {
    # Last of the prompt commands: (re)wraps PS1 in the prompt marks and puts the command
    # mark in PS0, after whatever the user's prompt commands did to them.
    local status=$?
    PS1=${PS1//"$__wterm_si_a"/}
    PS1=${PS1//"$__wterm_si_b"/}
    PS1=$__wterm_si_a$PS1$__wterm_si_b
    PS0=${PS0-}
    PS0=${PS0//"$__wterm_si_ps0"/}
    PS0=$__wterm_si_ps0$PS0
    return "$status"
}

if [[ -n ${bash_preexec_imported-}${__bp_imported-} ]]; then
    # bash-preexec owns PROMPT_COMMAND; it gives every precmd function the command's $?.
    __wterm_si_precmd_bp() { __wterm_si_precmd "$?"; }
    precmd_functions=(__wterm_si_precmd_bp "${precmd_functions[@]}")
    precmd_functions+=(__wterm_si_prompt)
else
    # The guard keeps a PROMPT_COMMAND that leaks into another bash (exported) harmless.
    __wterm_si_first='__wterm_si_s=$?; if builtin declare -F __wterm_si_precmd >/dev/null; then __wterm_si_precmd "$__wterm_si_s"; else (exit "$__wterm_si_s"); fi'
    __wterm_si_last='if builtin declare -F __wterm_si_prompt >/dev/null; then __wterm_si_prompt; fi'
    if [[ $(builtin declare -p PROMPT_COMMAND 2>/dev/null) == "declare -a"* ]]; then
        PROMPT_COMMAND=("$__wterm_si_first" "${PROMPT_COMMAND[@]}" "$__wterm_si_last")
    elif [[ -n ${PROMPT_COMMAND-} ]]; then
        PROMPT_COMMAND=$__wterm_si_first$'\n'$PROMPT_COMMAND$'\n'$__wterm_si_last
    else
        PROMPT_COMMAND=$__wterm_si_first$'\n'$__wterm_si_last
    fi
    unset __wterm_si_first __wterm_si_last
fi

# `exec bash` / `exec zsh` / `exec fish` replace this shell: give the new one what it needs to
# report too. Only when the relay injected us (it sets __wterm_si_dir). The alias keeps `exec`
# itself; assignments before it reach the new program only, so `exec 3>file` changes nothing.
if [[ -n ${__wterm_si_dir-} ]] && ! builtin alias exec >/dev/null 2>&1; then
    builtin printf -v __wterm_si_boot '. %q' "$__wterm_si_dir/bash-exec.bash"
    builtin alias exec='WTERM_SI_EXEC=1 PROMPT_COMMAND=$__wterm_si_boot WTERM_ZDOTDIR=${ZDOTDIR-} ZDOTDIR=$__wterm_si_dir/zsh WTERM_XDG_DATA_DIRS=${XDG_DATA_DIRS-} XDG_DATA_DIRS=$__wterm_si_dir/xdg:${XDG_DATA_DIRS:-/usr/local/share:/usr/share} exec'
fi

__wterm_si_prompt
__wterm_si_cmdno='\#'
__wterm_si_cmdno=${__wterm_si_cmdno@P}
