# bash completion for pcp-archive-rs (made by scripts/gen-man.py): options,
# then files (archives, configurations)
_pcp_archive_rs() {
    local cur=${COMP_WORDS[COMP_CWORD]} opts=""
    case ${COMP_WORDS[0]##*/} in
        pmdumplog) opts="-a --all -d --descs -e --labelsets -h --helptext -I --on-disk-insts -i --insts -L -l --label -M --markrecs -m --metrics -n --namespace -r --reverse -S --start -s --sizes -T --finish -t -v -x -Z --timezone -z --hostzone -V --version --help --json" ;;
        pmlc) opts="-e --echo -h --host -i --interactive -n --namespace -P --primary -p --port -Z --timezone -z --logzone --help --pcp-exit-status --version" ;;
        pmlogcheck) opts="-l --label -m --metadataonly -n --namespace -S --start -T --finish -v --verbose -w --nowrap -Z --timezone -z --hostzone --help --repair --dry-run --json --version" ;;
        pmlogextract) opts="-c --config -d --desperate -f --first -m --mark -S --start -s --samples -T --finish -V --outputversion -v -w -x -Z --timezone -z --hostzone --help --version" ;;
        pmlogger) opts="-c --config -C --check -h --host -H --labelhost -I --pmlc-ipc-version -l --log -L --linger -m --note -K --spec-local -o --local-PMDA -n --namespace -N --notify -p --PID -P --primary -r --report -s --size -t --interval -T --finish -u -U --username -v --volsize -V --version -x -y --help" ;;
        pmval) opts="-A --align -a --archive -g --guimode -h --host -n --namespace -O --origin -p --guiport -S --start -s --samples -T --finish -t --interval -Z --timezone -z --hostzone -V --version --help -K --spec-local -L --local-PMDA --container --derived -d --delay -f --precision -i --instances -r --raw -U --nointerp -v --verbose -w --width -x --filter -X --timestamp --csv --json --nearest" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _pcp_archive_rs pmdumplog pmlc pmlogcheck pmlogextract pmlogger pmval
