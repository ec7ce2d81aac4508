# wterm: bash's init file (`bash --init-file THIS`). Reads the startup files bash would have
# read (the relay starts bash non-login so that this file is read at all), then the shell
# integration. The user's files are never changed.
__wterm_si_dir=${BASH_SOURCE[0]%/*}
if [[ -n ${WTERM_SHELL_LOGIN-} ]]; then
    unset WTERM_SHELL_LOGIN
    # A login shell: /etc/profile, then the first of these that exists.
    if [[ -r /etc/profile ]]; then . /etc/profile; fi
    for __wterm_si_f in ~/.bash_profile ~/.bash_login ~/.profile; do
        if [[ -r $__wterm_si_f ]]; then
            . "$__wterm_si_f"
            break
        fi
    done
    unset __wterm_si_f
else
    # Interactive, not login: bash itself has read its system file (/etc/bash.bashrc on
    # Debian) before this one; ~/.bashrc is the one --init-file replaced.
    if [[ -r ~/.bashrc ]]; then . ~/.bashrc; fi
fi
. "$__wterm_si_dir/wterm.bash"
