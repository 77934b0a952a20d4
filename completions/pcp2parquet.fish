complete -c pcp2parquet -s o -l output -d 'Output directory (datasets values/, events/, metrics/)' -r -F
complete -c pcp2parquet -s S -l start -d 'Start of the time window (PCP\'s -S forms; absolute times are UTC)' -r
complete -c pcp2parquet -s T -l finish -d 'End of the time window (PCP\'s -T forms; absolute times are UTC)' -r
complete -c pcp2parquet -s m -l metric -d 'Only this metric or subtree (repeatable)' -r
complete -c pcp2parquet -s t -l interval -d 'Interpolated samples this far apart (PCP interval forms: 10, 10s, 1min), counters as rates' -r
complete -c pcp2parquet -s j -l jobs -d 'Archives exported at once (default: the number of cores)' -r
complete -c pcp2parquet -l time-unit -d 'Unit of the timestamp columns: ns (as v3 archives hold them) or us (as v2 archives do; Spark without its nanosecond settings reads only these)' -r -f -a "ns\t''
us\t''"
complete -c pcp2parquet -l row-group-size -d 'Rows per row group, at most' -r
complete -c pcp2parquet -l completions -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell) and exit' -r -f -a "bash\t''
elvish\t''
fish\t''
powershell\t''
zsh\t''"
complete -c pcp2parquet -l man -d 'Print the man page (roff) and exit'
complete -c pcp2parquet -s h -l help -d 'Print help'
complete -c pcp2parquet -s V -l version -d 'Print version'
