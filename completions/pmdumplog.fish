complete -c pmdumplog -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmdumplog -s S -l start -d 'start of the time window' -r -f
complete -c pmdumplog -s T -l finish -d 'end of the time window' -r -f
complete -c pmdumplog -s v -d 'verbose hex dump of a physical file in raw format' -r -F
complete -c pmdumplog -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmdumplog -s a -l all -d 'dump everything'
complete -c pmdumplog -s d -l descs -d 'dump metric descriptions'
complete -c pmdumplog -s e -l labelsets -d 'dump all metric label metadata'
complete -c pmdumplog -s h -l helptext -d 'dump all metric help text'
complete -c pmdumplog -s I -l on-disk-insts -d 'dump on-disk instance domain descriptions'
complete -c pmdumplog -s i -l insts -d 'dump instance domain descriptions'
complete -c pmdumplog -s L -d 'more verbose form of archive label dump'
complete -c pmdumplog -s l -l label -d 'dump the archive label'
complete -c pmdumplog -s M -l markrecs -d 'report <mark> records'
complete -c pmdumplog -s m -l metrics -d 'dump values of the metrics (default)'
complete -c pmdumplog -s r -l reverse -d 'process archive in reverse chronological order'
complete -c pmdumplog -s s -l sizes -d 'report size of data records in archive'
complete -c pmdumplog -s t -d 'dump the temporal index'
complete -c pmdumplog -s x -d 'include date, usec (-xx) and Epoch (-xxx) in reported timestamps'
complete -c pmdumplog -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pmdumplog -s V -l version -d 'display version number and exit'
complete -c pmdumplog -s ? -l help -d 'show this usage message and exit'
complete -c pmdumplog -l json -d 'the archive as JSON: label, descriptors, instances, records'
