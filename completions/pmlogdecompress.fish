complete -c pmlogdecompress -s t -l dir -d 'decompress into directory DIR' -r -f
complete -c pmlogdecompress -s N -l show-me -d 'do nothing, but show me'
complete -c pmlogdecompress -s V -l verbose -d 'increase verbosity'
complete -c pmlogdecompress -s ? -l help -d 'show this usage message and exit'
