complete -c pmlogrewrite -s c -l config -d 'file or directory to load rules from' -r -f
complete -c pmlogrewrite -s V -l version -d 'output archive in version N [2/3] format' -r -f
complete -c pmlogrewrite -s C -l check -d 'parse config file(s) and quit (verbose warnings also)'
complete -c pmlogrewrite -s d -l desperate -d 'desperate, save output archive even after error'
complete -c pmlogrewrite -s i -d 'rewrite in place, input-archive will be over-written'
complete -c pmlogrewrite -s q -l quick -d 'quick mode, no output if no change'
complete -c pmlogrewrite -s s -l scale -d 'do scale conversion'
complete -c pmlogrewrite -s v -l verbose -d 'increased diagnostic verbosity'
complete -c pmlogrewrite -s w -l warnings -d 'emit warnings [default is silence]'
complete -c pmlogrewrite -s ? -l help -d 'show this usage message and exit'
