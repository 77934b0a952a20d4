complete -c pmval -s A -l align -d 'align sample times on natural boundaries' -r -f
complete -c pmval -s a -l archive -d 'metrics source is a PCP log archive' -r -F
complete -c pmval -s h -l host -d 'metrics source is PMCD on host' -r -f -a "(__fish_print_hostnames)"
complete -c pmval -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmval -s O -l origin -d 'initial sample time within the time window' -r -f
complete -c pmval -s p -l guiport -d 'port for connection to existing time control' -r -f
complete -c pmval -s S -l start -d 'start of the time window' -r -f
complete -c pmval -s s -l samples -d 'terminate after this many samples' -r -f
complete -c pmval -s T -l finish -d 'end of the time window' -r -f
complete -c pmval -s t -l interval -d 'sampling interval' -r -f
complete -c pmval -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmval -s K -l spec-local -d 'optional additional PMDA spec for local connection' -r -f
complete -c pmval -l container -d 'specify an individual container to be queried' -r -f
complete -c pmval -l derived -d 'load derived metric definitions from FILE(s)' -r -F
complete -c pmval -s f -l precision -d 'fixed output format with N digits precision' -r -f
complete -c pmval -s i -l instances -d 'comma-separated metrics instance list' -r -f
complete -c pmval -s U -l nointerp -d 'non-interpolated fetching; ignores interval' -r -F
complete -c pmval -s w -l width -d 'set the width of each column of output' -r -f
complete -c pmval -s x -l filter -d 'store to the metric before fetching (filter)' -r -f
complete -c pmval -s g -l guimode -d 'start in GUI mode with new time control'
complete -c pmval -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pmval -s V -l version -d 'display version number and exit'
complete -c pmval -s ? -l help -d 'show this usage message and exit'
complete -c pmval -s L -l local-PMDA -d 'metrics source is local connection to a PMDA'
complete -c pmval -s d -l delay -d 'delay, pause between updates for archive replay'
complete -c pmval -s r -l raw -d 'output raw counter values (no rate conversion)'
complete -c pmval -s v -l verbose -d 'increase diagnostic output'
complete -c pmval -s X -l timestamp -d 'include date and microseconds in reported timestamps'
complete -c pmval -l csv -d 'values as CSV: a header row of instance names, a row a sample'
complete -c pmval -l json -d 'values as JSON lines, a sample a line'
complete -c pmval -l nearest -d 'the value recorded nearest each sample time, not interpolated'
complete -c pmval -l skip-damaged -d 'of several archives, leave out those that cannot be opened or read (as PCP 7.1.4)'
