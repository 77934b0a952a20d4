complete -c pmlogsize -s x -l threshold -d 'cull detailed report after thres % of space reported' -r -f
complete -c pmlogsize -s d -l detail -d 'detailed output (per metric and per indom)'
complete -c pmlogsize -s r -l replication -d 'report replicated metric values and instances'
complete -c pmlogsize -s v -l verbose -d 'verbose output'
complete -c pmlogsize -s ? -l help -d 'show this usage message and exit'
