complete -c pmlogger -s c -l config -d 'file to load configuration from' -r -F
complete -c pmlogger -s h -l host -d 'metrics source is PMCD on host' -r -f -a "(__fish_print_hostnames)"
complete -c pmlogger -s H -l labelhost -d 'override the hostname written into the label' -r -f
complete -c pmlogger -s I -l pmlc-ipc-version -d 'set IPC version for pmlc port [defaily LOG_PDU_VERSION]' -r -f
complete -c pmlogger -s l -l log -d 'redirect diagnostics and trace output' -r -F
complete -c pmlogger -s m -l note -d 'descriptive note to be added to the port map file' -r -f
complete -c pmlogger -s K -l spec-local -d 'optional additional PMDA spec for local connection' -r -f
complete -c pmlogger -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmlogger -s p -l PID -d 'Log specified metric for the lifetime of the pid' -r -f
complete -c pmlogger -s s -l size -d 'terminate after endsize has been accumulated' -r -f
complete -c pmlogger -s t -l interval -d 'default logging interval [default 60.0 seconds]' -r -f
complete -c pmlogger -s T -l finish -d 'end of the time window' -r -f
complete -c pmlogger -s U -l username -d 'in daemon mode, run as named user [default pcp]' -r -f -a "(__fish_complete_users)"
complete -c pmlogger -s v -l volsize -d 'switch log volumes after size has been accumulated' -r -f
complete -c pmlogger -s V -l version -d 'version for archive (default and only version is 2)' -r -f
complete -c pmlogger -s x -d 'control file descriptor for running from pmRecordControl(3)' -r -f
complete -c pmlogger -l push-user -d 'user name for HTTP Basic authentication when pushing' -r -f -a "(__fish_complete_users)"
complete -c pmlogger -l push-password-file -d 'file holding the HTTP Basic auth password' -r -F
complete -c pmlogger -s C -l check -d 'parse configuration and exit'
complete -c pmlogger -s L -l linger -d 'run even if not primary logger instance and nothing to log'
complete -c pmlogger -s o -l local-PMDA -d 'metrics sourced without connecting to pmcd'
complete -c pmlogger -s N -l notify -d 'notify service manager (if any) when started and ready'
complete -c pmlogger -s P -l primary -d 'execute as primary logger instance'
complete -c pmlogger -s r -l report -d 'report record sizes and archive growth rate'
complete -c pmlogger -s u -d 'output is unbuffered [default now, so -u is a no-op]'
complete -c pmlogger -s y -d 'set timezone for times to local time rather than from PMCD host'
complete -c pmlogger -s ? -l help -d 'show this usage message and exit'
