complete -c pmlogcheck -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmlogcheck -s S -l start -d 'start of the time window' -r -f
complete -c pmlogcheck -s T -l finish -d 'end of the time window' -r -f
complete -c pmlogcheck -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmlogcheck -s l -l label -d 'print the archive label'
complete -c pmlogcheck -s m -l metadataonly -d 'skip checking log data volumes'
complete -c pmlogcheck -s v -l verbose -d 'verbose output'
complete -c pmlogcheck -s w -l nowrap -d 'suppress counter wrap warnings'
complete -c pmlogcheck -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pmlogcheck -s ? -l help -d 'show this usage message and exit'
complete -c pmlogcheck -s f -l full -d 'full check, don\'t give up early'
complete -c pmlogcheck -s r -l interactive-repair -d 'repair [interactive]'
complete -c pmlogcheck -s R -l auto-repair -d 'repair [non-interactive]'
complete -c pmlogcheck -l repair -d 'cut torn volumes, .meta and index back to their last whole record'
complete -c pmlogcheck -l dry-run -d 'with --repair: say what would be cut, change nothing'
complete -c pmlogcheck -l json -d 'findings as JSON, with their pass and the exit status'
complete -c pmlogcheck -l version -d 'PCP\'s version line, then this project\'s'
