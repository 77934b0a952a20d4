complete -c pmloglabel -s h -l host -d 'set the hostname for all files in archive' -r -f
complete -c pmloglabel -s p -l pid -d 'set the logger process ID field for all files in archive' -r -f
complete -c pmloglabel -s V -l version -d 'write magic and version numbers for all files in archive' -r -f
complete -c pmloglabel -s Z -l timezone -d 'set the timezone for all files in archive' -r -f
complete -c pmloglabel -s l -l label -d 'dump the archive label'
complete -c pmloglabel -s L -d 'more verbose form of label dump'
complete -c pmloglabel -s s -d 'write the label sentinel values for all files in archive'
complete -c pmloglabel -s v -l verbose -d 'run in verbose mode, reporting on each stage of checking'
complete -c pmloglabel -s ? -l help -d 'show this usage message and exit'
