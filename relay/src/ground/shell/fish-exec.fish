# wterm: read from fish's vendor_conf.d by a fish that replaced (`exec fish`) a shell with the
# integration: takes back what that shell put in the environment, then installs the
# integration once config.fish has run.
set -l dir (path dirname (path dirname (path dirname (path dirname (status current-filename)))))
if set -q WTERM_XDG_DATA_DIRS
    if test -n "$WTERM_XDG_DATA_DIRS"
        set -gx XDG_DATA_DIRS $WTERM_XDG_DATA_DIRS
    else
        set -e XDG_DATA_DIRS
    end
    set -e WTERM_XDG_DATA_DIRS
end
if set -q WTERM_ZDOTDIR
    if test -n "$WTERM_ZDOTDIR"
        set -gx ZDOTDIR $WTERM_ZDOTDIR
    else
        set -e ZDOTDIR
    end
    set -e WTERM_ZDOTDIR
end
string match -q '*bash-exec.bash*' -- "$PROMPT_COMMAND"; and set -e PROMPT_COMMAND
if set -q WTERM_SI_EXEC; and status is-interactive
    set -e WTERM_SI_EXEC
    # The `exec` that started this shell is over.
    printf '\e]133;D;0\a'
    set -g __wterm_si_dir $dir
    source $dir/fish/wterm.fish
end
set -e WTERM_SI_EXEC
