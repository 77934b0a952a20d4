complete -c pmlogcompress -s A -l arg -d 'argument for compression program' -r -f
complete -c pmlogcompress -s C -l config -d 'alternate defaults configuration file' -r -f
complete -c pmlogcompress -s c -l command -d 'candidate compression program(s)' -r -f
complete -c pmlogcompress -s f -l use -d 'use this compression program' -r -f
complete -c pmlogcompress -s l -l lower-limit -d 'do no compress files smaller than LIMIT' -r -f
complete -c pmlogcompress -s o -l optimize -d 'choose program to optimize compression' -r -f
complete -c pmlogcompress -s Z -l min-zstd-size -d 'minimum file size for compression with zstd' -r -f
complete -c pmlogcompress -s N -l show-me -d 'do nothing, but show me'
complete -c pmlogcompress -s V -l verbose -d 'increase verbosity'
complete -c pmlogcompress -s ? -l help -d 'show this usage message and exit'
