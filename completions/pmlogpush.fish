complete -c pmlogpush -s D -l debug -d 'set debug options, see pmdbg(1)' -r -f
complete -c pmlogpush -s h -l host -d 'pmproxy HTTP connection host name' -r -f -a "(__fish_print_hostnames)"
complete -c pmlogpush -s p -l port -d 'pmproxy HTTP connection port number' -r -f
complete -c pmlogpush -s U -l username -d 'user name for HTTP Basic authentication' -r -f -a "(__fish_complete_users)"
complete -c pmlogpush -s P -l password-file -d 'file holding the HTTP Basic auth password' -r -F
complete -c pmlogpush -s s -l unix -d 'pmproxy HTTP Unix domain socket path' -r -f
complete -c pmlogpush -s S -l secure -d 'use a secure (TLS) HTTPS connection'
complete -c pmlogpush -s v -l verbose -d 'verbose progress diagnostics'
complete -c pmlogpush -s V -l version -d 'display version number and exit'
complete -c pmlogpush -s ? -l help -d 'show this usage message and exit'
