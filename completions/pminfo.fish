complete -c pminfo -s a -l archive -d 'metrics source is a PCP log archive' -r -F
complete -c pminfo -s h -l host -d 'metrics source is PMCD on host' -r -f -a "(__fish_print_hostnames)"
complete -c pminfo -l container -d 'specify an individual container to be queried' -r -f
complete -c pminfo -s K -l spec-local -d 'optional additional PMDA spec for local connection' -r -f
complete -c pminfo -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pminfo -s N -l uniqnames -d 'like -n but only one name allowed for each PMID' -r -F
complete -c pminfo -s O -l origin -d 'initial sample time within the time window' -r -f
complete -c pminfo -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pminfo -s b -l batch -d 'fetch N metrics at a time for -f and -v [128]' -r -f
complete -c pminfo -s c -l derived -d 'load derived metric definitions from FILE(s)' -r -F
complete -c pminfo -s L -l local-PMDA -d 'metrics source is local connection to a PMDA'
complete -c pminfo -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pminfo -s V -l version -d 'display version number and exit'
complete -c pminfo -s ? -l help -d 'show this usage message and exit'
complete -c pminfo -s d -l desc -d 'get and print metric description'
complete -c pminfo -s f -l fetch -d 'fetch and print values for all instances'
complete -c pminfo -s F -l fetchall -d 'fetch and print values for non-enumerable indoms'
complete -c pminfo -s I -l fullindom -d 'print InDom in verbose format'
complete -c pminfo -s l -l labels -d 'print InDom, metric and instance labels'
complete -c pminfo -s m -l pmid -d 'print PMID'
complete -c pminfo -s M -l fullpmid -d 'print PMID in verbose format'
complete -c pminfo -s s -l series -d 'print source, metric, instance series identifiers'
complete -c pminfo -s t -l oneline -d 'get and display (terse) oneline text'
complete -c pminfo -s T -l helptext -d 'get and display (verbose) help text'
complete -c pminfo -s x -l events -d 'unpack and report on any fetched event records'
complete -c pminfo -s v -l verify -d 'verify mode, be quiet and only report errors'
complete -c pminfo -l json -d 'what -d -m -t -T -l -f report, as one JSON object a metric per line'
complete -c pminfo -l skip-damaged -d 'of several archives, leave out those that cannot be opened or read (as PCP 7.1.4)'
