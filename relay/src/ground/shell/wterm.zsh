# wterm shell integration for zsh (5.x; tested with 5.9).
#
# Reports to the terminal: the prompt's start and end (OSC 133;A and 133;B), the command line
# (OSC 633;E;<text>, `\` as `\\`, `;` and bytes below 0x20 as \xHH), the command's start
# (133;C), its end with its exit code (133;D;<code>) and the working directory
# (OSC 7 file://host/path). Source it at the end of ~/.zshrc:
#
#     source /path/to/wterm.zsh
#
# It adds hooks with add-zsh-hook and keeps the user's precmd/preexec hooks and prompt; it runs
# under `setopt nounset`.

[[ -o interactive ]] || return 0
(( ${+__wterm_si_loaded} )) && return 0
typeset -g __wterm_si_loaded=1
typeset -g __wterm_si_ran= __wterm_si_cwd= __wterm_si_osc7= __wterm_si_r= __wterm_si_exec_env=
typeset -g __wterm_si_a=$'%{\e]133;A\a%}' __wterm_si_b=$'%{\e]133;B\a%}'
typeset -ga __wterm_si_saved=()

__wterm_si_escape() {
  # Sets __wterm_si_r to $1 escaped for OSC 633;E.
  emulate -L zsh
  local s=${1//\\/\\\\} i hex
  s=${s//;/\\x3b}
  if [[ $s == *[[:cntrl:]]* ]]; then
    for i in {1..31}; do
      printf -v hex '%02x' $i
      s=${s//${(#)i}/\\x$hex}
    done
  fi
  __wterm_si_r=$s
}

__wterm_si_urlpath() {
  # Sets __wterm_si_r to $1 percent-encoded byte by byte (unreserved characters and / kept).
  emulate -L zsh
  local LC_ALL=C s=$1 out= c i
  for (( i = 1; i <= ${#s}; i++ )); do
    c=${s[i]}
    case $c in
      ([a-zA-Z0-9/._~-]) out+=$c ;;
      (*) printf -v c '%%%02X' "'$c"; out+=$c ;;
    esac
  done
  __wterm_si_r=$out
}

__wterm_si_precmd() {
  # First precmd hook: the end of the command that ran (with $?), and the working directory.
  local ret=$?
  emulate -L zsh
  if [[ -n $__wterm_si_ran ]]; then
    __wterm_si_ran=
    builtin printf '\e]133;D;%s\a' $ret
  fi
  if [[ $PWD != $__wterm_si_cwd ]]; then
    __wterm_si_cwd=$PWD
    __wterm_si_urlpath $PWD
    __wterm_si_osc7=$'\e]7;file://'${HOST-}$__wterm_si_r$'\a'
  fi
  builtin print -rn -- $__wterm_si_osc7
  [[ -n $__wterm_si_exec_env ]] && __wterm_si_exec_restore
  return $ret
}

__wterm_si_prompt() {
  # Last precmd hook: (re)wraps the prompt in the prompt marks, after the other hooks.
  local ret=$?
  PS1=${PS1//"$__wterm_si_a"/}
  PS1=${PS1//"$__wterm_si_b"/}
  PS1=$__wterm_si_a$PS1$__wterm_si_b
  return $ret
}

__wterm_si_preexec() {
  emulate -L zsh
  # $1: the line as typed (empty when history is off); $3: the full text being run.
  local line=${1:-${3-}}
  __wterm_si_escape $line
  builtin printf '\e]633;E;%s\a\e]133;C\a' $__wterm_si_r
  __wterm_si_ran=1
  if [[ -n ${__wterm_si_dir-} && $line == (exec|exec[[:space:]]*) ]]; then
    __wterm_si_exec_prepare
  fi
}

# `exec bash|zsh|fish` replaces this shell: give the new one what it needs to report too
# (only when the relay injected us: __wterm_si_dir is set). Taken back at the next prompt
# when the exec did not replace the shell.
__wterm_si_exec_prepare() {
  local n
  __wterm_si_saved=()
  for n in ZDOTDIR XDG_DATA_DIRS PROMPT_COMMAND; do
    (( ${(P)+n} )) && __wterm_si_saved+=($n ${(P)n})
  done
  __wterm_si_exec_env=1
  export WTERM_SI_EXEC=1 WTERM_ZDOTDIR=${ZDOTDIR-} WTERM_XDG_DATA_DIRS=${XDG_DATA_DIRS-}
  export ZDOTDIR=$__wterm_si_dir/zsh
  export XDG_DATA_DIRS=$__wterm_si_dir/xdg:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
  export PROMPT_COMMAND=". ${(q)__wterm_si_dir}/bash-exec.bash"
}

__wterm_si_exec_restore() {
  local n v
  __wterm_si_exec_env=
  unset WTERM_SI_EXEC WTERM_ZDOTDIR WTERM_XDG_DATA_DIRS ZDOTDIR XDG_DATA_DIRS PROMPT_COMMAND
  for n v in $__wterm_si_saved; do
    export $n=$v
  done
  __wterm_si_saved=()
}

autoload -Uz add-zsh-hook
precmd_functions=(__wterm_si_precmd ${precmd_functions[@]})
add-zsh-hook precmd __wterm_si_prompt
add-zsh-hook preexec __wterm_si_preexec
__wterm_si_prompt
