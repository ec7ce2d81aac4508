# wterm shell integration for fish (3.x; tested with 3.6).
#
# Reports to the terminal: the prompt's start and end (OSC 133;A and 133;B), the command line
# (OSC 633;E;<text>, `\` as `\\`, `;` and bytes below 0x20 as \xHH), the command's start
# (133;C), its end with its exit code (133;D;<code>) and the working directory
# (OSC 7 file://host/path). Source it from ~/.config/fish/config.fish:
#
#     source /path/to/wterm.fish
#
# It listens to fish's events and wraps the user's fish_prompt (again whenever it is
# redefined); nothing else of the user's is changed.

status is-interactive; or return 0
set -q __wterm_si_loaded; and return 0
set -g __wterm_si_loaded 1

function __wterm_si_escape --description 'wterm: escape $argv[1] for OSC 633;E'
    # `string replace` ends its output with a newline, which `string collect` takes off.
    set -l s (string replace -a -- '\\' '\\\\' $argv[1] | string collect)
    set s (string replace -a -- ';' '\\x3b' "$s" | string collect)
    if string match -qr '[\x01-\x1f]' -- "$s"
        for i in (seq 31)
            set -l hex (printf '%02x' $i)
            set -l ch (printf "\\x$hex" | string collect -N)
            set s (string replace -a -- "$ch" "\\x$hex" "$s" | string collect)
        end
    end
    printf '%s' "$s"
end

function __wterm_si_preexec --on-event fish_preexec
    printf '\e]633;E;%s\a\e]133;C\a' (__wterm_si_escape "$argv[1]")
    set -g __wterm_si_ran 1
    if set -q __wterm_si_dir; and string match -qr '^\s*exec(\s|$)' -- "$argv[1]"
        __wterm_si_exec_prepare
    end
end

function __wterm_si_postexec --on-event fish_postexec
    set -l ret $status
    if set -q __wterm_si_ran
        set -e __wterm_si_ran
        printf '\e]133;D;%s\a' $ret
    end
    set -q __wterm_si_saved; and __wterm_si_exec_restore
end

function __wterm_si_on_prompt --on-event fish_prompt
    if test "$PWD" != "$__wterm_si_cwd"
        set -g __wterm_si_cwd $PWD
        set -g __wterm_si_osc7 (printf '\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD))
    end
    printf '%s' $__wterm_si_osc7
    # Wrap the user's prompt (defined in config.fish, or later) in the prompt marks.
    if not functions -q fish_prompt; or not string match -q '*__wterm_si_user_prompt*' -- (functions fish_prompt)
        functions -q __wterm_si_user_prompt; and functions -e __wterm_si_user_prompt
        functions -q fish_prompt; and functions -c fish_prompt __wterm_si_user_prompt
        function fish_prompt
            printf '\e]133;A\a'
            functions -q __wterm_si_user_prompt; and __wterm_si_user_prompt
            printf '\e]133;B\a'
        end
    end
end

# `exec bash|zsh|fish` replaces this shell: give the new one what it needs to report too (only
# when the relay injected us: __wterm_si_dir is set). Taken back after the command when the
# exec did not replace the shell.
function __wterm_si_exec_prepare
    set -g __wterm_si_saved
    for n in ZDOTDIR XDG_DATA_DIRS PROMPT_COMMAND
        set -q $n; and set -a __wterm_si_saved $n "$$n"
    end
    set -gx WTERM_SI_EXEC 1
    set -gx WTERM_ZDOTDIR "$ZDOTDIR"
    set -gx WTERM_XDG_DATA_DIRS "$XDG_DATA_DIRS"
    set -gx ZDOTDIR $__wterm_si_dir/zsh
    set -l xdg "$XDG_DATA_DIRS"
    test -n "$xdg"; or set xdg /usr/local/share:/usr/share
    set -gx XDG_DATA_DIRS $__wterm_si_dir/xdg:$xdg
    set -gx PROMPT_COMMAND ". "(string escape --style=script -- $__wterm_si_dir/bash-exec.bash)
end

function __wterm_si_exec_restore
    set -e WTERM_SI_EXEC WTERM_ZDOTDIR WTERM_XDG_DATA_DIRS ZDOTDIR XDG_DATA_DIRS PROMPT_COMMAND
    while set -q __wterm_si_saved[2]
        set -gx $__wterm_si_saved[1] $__wterm_si_saved[2]
        set -e __wterm_si_saved[1..2]
    end
    set -e __wterm_si_saved
end
