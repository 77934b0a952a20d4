complete -c pmlc -s h -l host -d 'connect to pmlogger using host specification' -r -f -a "(__fish_print_hostnames)"
complete -c pmlc -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmlc -s p -l port -d 'connect to pmlogger on this TCP/IP port' -r -f
complete -c pmlc -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmlc -s e -l echo -d 'echo input'
complete -c pmlc -s i -l interactive -d 'be interactive and prompt'
complete -c pmlc -s P -l primary -d 'connect to primary pmlogger'
complete -c pmlc -s z -l logzone -d 'set reporting timezone to local time for pmlogger'
complete -c pmlc -s ? -l help -d 'show this usage message and exit'
complete -c pmlc -l pcp-exit-status -d 'exit 0 whatever failed, as PCP\'s pmlc (ours exits 1)'
complete -c pmlc -l version -d 'PCP\'s version line, then this project\'s'
