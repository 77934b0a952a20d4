complete -c pmlogsummary -s B -l bins -d 'print value distribution across a number of bins' -r -f
complete -c pmlogsummary -s n -l namespace -d 'use an alternative PMNS' -r -F
complete -c pmlogsummary -s p -l precision -d 'number of digits to display after the decimal point' -r -f
complete -c pmlogsummary -s S -l start -d 'start of the time window' -r -f
complete -c pmlogsummary -s T -l finish -d 'end of the time window' -r -f
complete -c pmlogsummary -s Z -l timezone -d 'set reporting timezone' -r -f
complete -c pmlogsummary -s a -l all -d 'print all information (equivalent to -blmMy)'
complete -c pmlogsummary -s b -d 'print both stochastic and time averages for counter metrics'
complete -c pmlogsummary -s f -d 'print using "spreadsheet" format (tab delimited fields)'
complete -c pmlogsummary -s F -d 'print using "spreadsheet" format (comma separated values)'
complete -c pmlogsummary -s H -l header -d 'print one-line header at start showing each column'
complete -c pmlogsummary -s i -l mintime -d 'also print timestamp for minimum value'
complete -c pmlogsummary -s I -l maxtime -d 'also print timestamp for maximum value'
complete -c pmlogsummary -s l -l label -d 'also print the archive label and time window'
complete -c pmlogsummary -s m -l minimum -d 'also print minimum value'
complete -c pmlogsummary -s M -l maximum -d 'also print maximum value'
complete -c pmlogsummary -s N -d 'suppress warnings from individual archive fetches (default)'
complete -c pmlogsummary -s s -l sum -d 'only print the sum of all values of each metric'
complete -c pmlogsummary -s v -l verbose -d 'verbose, enable warnings from individual archive fetches'
complete -c pmlogsummary -s x -d 'print only stochastic averages for counter metrics'
complete -c pmlogsummary -s y -l samples -d 'print sample count for each metric'
complete -c pmlogsummary -s z -l hostzone -d 'set reporting timezone to local time of metrics source'
complete -c pmlogsummary -s V -l version -d 'display version number and exit'
complete -c pmlogsummary -s ? -l help -d 'show this usage message and exit'
complete -c pmlogsummary -l csv -d 'the statistics asked for as CSV, a row per metric and instance'
complete -c pmlogsummary -l json -d 'the statistics asked for as JSON, an object per metric and instance a line'
complete -c pmlogsummary -l skip-damaged -d 'of several archives, leave out those that cannot be opened or read (as PCP 7.1.4)'
