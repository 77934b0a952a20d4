complete -c pmlogextract -s c -l config -d 'file to load configuration from' -r -F
complete -c pmlogextract -s S -l start -d 'start of the time window' -r -f
complete -c pmlogextract -s s -l samples -d 'terminate after NUM log records have been written' -r -f
complete -c pmlogextract -s T -l finish -d 'end of the time window' -r -f
complete -c pmlogextract -s V -l outputversion -d 'output archive version' -r -f
complete -c pmlogextract -s v -d 'switch log volumes after this many samples' -r -f
complete -c pmlogextract -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmlogextract -s d -l desperate -d 'desperate, save output after fatal error'
complete -c pmlogextract -s f -l first -d 'use timezone from first archive [default is last]'
complete -c pmlogextract -s m -l mark -d 'ignore prologue/epilogue records and <mark> between archives'
complete -c pmlogextract -s w -d 'ignore day/month/year'
complete -c pmlogextract -s x -d 'skip metrics with mismatched metadata'
complete -c pmlogextract -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pmlogextract -s ? -l help -d 'show this usage message and exit'
complete -c pmlogextract -l version -d 'PCP\'s version line, then this project\'s'
