complete -c pmlogdump -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmlogdump -s S -l start -d 'start of the time window' -r -f
complete -c pmlogdump -s T -l finish -d 'end of the time window' -r -f
complete -c pmlogdump -s v -d 'verbose hex dump of a physical file in raw format' -r -F
complete -c pmlogdump -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmlogdump -s a -l all -d 'dump everything'
complete -c pmlogdump -s d -l descs -d 'dump metric descriptions'
complete -c pmlogdump -s e -l labelsets -d 'dump all metric label metadata'
complete -c pmlogdump -s h -l helptext -d 'dump all metric help text'
complete -c pmlogdump -s I -l on-disk-insts -d 'dump on-disk instance domain descriptions'
complete -c pmlogdump -s i -l insts -d 'dump instance domain descriptions'
complete -c pmlogdump -s L -d 'more verbose form of archive label dump'
complete -c pmlogdump -s l -l label -d 'dump the archive label'
complete -c pmlogdump -s M -l markrecs -d 'report <mark> records'
complete -c pmlogdump -s m -l metrics -d 'dump values of the metrics (default)'
complete -c pmlogdump -s r -l reverse -d 'process archive in reverse chronological order'
complete -c pmlogdump -s s -l sizes -d 'report size of data records in archive'
complete -c pmlogdump -s t -d 'dump the temporal index'
complete -c pmlogdump -s x -d 'include date, usec (-xx) and Epoch (-xxx) in reported timestamps'
complete -c pmlogdump -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pmlogdump -s V -l version -d 'display version number and exit'
complete -c pmlogdump -s ? -l help -d 'show this usage message and exit'
complete -c pmlogdump -l json -d 'the archive as JSON: label, descriptors, instances, records'
