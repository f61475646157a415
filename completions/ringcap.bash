# SPDX-License-Identifier: GPL-2.0-only
# bash completion for ringcap(1), on bash-completion (Debian's package):
# the subcommands; each one's options, read from `ringcap CMD --help` of the
# ringcap being completed (so never out of date); the values of the options
# that take a few fixed words; event names from `ringcap record -l`; capture
# files (*.rcap and the rotated *.rcap.<time>Z.<seq>) for report and stat;
# after `--`, the command to record.

# The long options of `$1 $2 --help` (argp's layout: "  -x, --name=ARG"),
# "=" kept on those that take an argument; cached per ringcap and command.
_ringcap_options()
{
    local key="$1 $2" line opt indent
    local -a opts=() parts
    if [[ ${_ringcap_opts_key-} != "$key" ]]; then
        # an option's line is indented 2 or 6 spaces; its description goes
        # on indented 29, where a line may begin with an option it names
        while IFS= read -r line; do
            indent=${line%%[! ]*}
            [[ ${#indent} -ne 29 ]] || continue
            read -r -a parts <<<"$line"
            [[ ${parts[0]-} == -* ]] || continue
            for opt in "${parts[@]}"; do
                case $opt in
                -?,) ;;
                --*)
                    opt=${opt%%[[,|]*}
                    [[ $opt == *=* ]] && opt=${opt%%=*}=
                    [[ $opt == --help || $opt == --usage ]] || opts+=("$opt")
                    ;;
                *) break ;;
                esac
            done
        done < <(LC_ALL=C "$1" "$2" --help 2>/dev/null)
        _ringcap_opts_key=$key
        _ringcap_opts="${opts[*]} --help"
    fi
    printf '%s\n' "$_ringcap_opts"
}

# The events -e takes: `$1 record -l` (ringcap's and the kernel's
# tracepoints, those that tracefs lets this user see), cached per ringcap.
_ringcap_events()
{
    if [[ ${_ringcap_events_key-} != "$1" ]]; then
        _ringcap_events_list=$(LC_ALL=C "$1" record -l 2>/dev/null |
            awk '!seen[$1]++ { print $1 }')
        [[ -n $_ringcap_events_list ]] || _ringcap_events_list="syscalls sched"
        _ringcap_events_key=$1
    fi
    printf '%s\n' "$_ringcap_events_list"
}

# Capture files: *.rcap, the files of a rotated run, and directories.
_ringcap_captures()
{
    _filedir '@(rcap|rcap.+([0-9])T+([0-9]).+([0-9])Z.+([0-9]))'
}

_ringcap()
{
    local cur prev words cword split
    _init_completion -s -n : || return

    local i cmd="" dashdash=0
    for ((i = 1; i < cword; i++)); do
        if [[ -z $cmd ]]; then
            case ${words[i]} in
            -*) ;;
            *) cmd=${words[i]} ;;
            esac
        elif [[ ${words[i]} == -- ]]; then
            dashdash=$i
            break
        fi
    done

    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W 'record report stat --help --version' -- "$cur"))
        return
    fi
    # record -- CMD, stat -- CMD: the command's own completion
    if ((dashdash)); then
        _command_offset $((dashdash + 1))
        return
    fi

    local ringcap=${words[0]}
    case $prev in
    -e | --event)
        # a comma-separated list: complete its last name
        local prefix="" word=$cur
        if [[ $cur == *,* ]]; then
            prefix=${cur%,*},
            word=${cur##*,}
        fi
        COMPREPLY=($(compgen -P "$prefix" -W "$(_ringcap_events "$ringcap")" -- "$word"))
        __ltrim_colon_completions "$cur"
        return
        ;;
    --transport)
        COMPREPLY=($(compgen -W 'auto ringbuf perfbuf ftrace' -- "$cur"))
        return
        ;;
    --drain)
        COMPREPLY=($(compgen -W 'poll busy' -- "$cur"))
        return
        ;;
    --ftrace-read)
        COMPREPLY=($(compgen -W 'mmap splice' -- "$cur"))
        return
        ;;
    --call-graph)
        COMPREPLY=($(compgen -W 'fp dwarf' -- "$cur"))
        return
        ;;
    --switch-output)
        COMPREPLY=($(compgen -W 'signal' -- "$cur"))
        return
        ;;
    --format)
        COMPREPLY=($(compgen -W 'text json csv perfetto perf-script folded flamegraph
            pprof' -- "$cur"))
        return
        ;;
    --hist)
        COMPREPLY=($(compgen -W 'syscall runq' -- "$cur"))
        return
        ;;
    --pprof-labels)
        local prefix=""
        [[ $cur == *,* ]] && prefix=${cur%,*},
        COMPREPLY=($(compgen -P "$prefix" -W 'pid tid comm cpu host all none' \
            -- "${cur##*,}"))
        return
        ;;
    -p | --pid)
        _pids
        return
        ;;
    --comm)
        _pnames
        return
        ;;
    -i | --input)
        _ringcap_captures
        return
        ;;
    -o | --output)
        _filedir rcap
        return
        ;;
    --bpf)
        _filedir o
        return
        ;;
    --aux-dump)
        _filedir -d
        return
        ;;
    --aux-size | --buffer-size | --compress-level | -c | --count | -d | --duration | \
        --event-type | --fail-on-drops | --flush-ms | -F | --freq | -j | --jobs | --map | \
        --max-size | --min-free | -m | --mmap-pages | --ringbuf-size | --set | --since | \
        --snapshot-on | --switch-max-files | --tid | -t | --top | --until | --wakeup | \
        --wakeup-ms | --cpu)
        return # a value of the user's
        ;;
    esac
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_ringcap_options "$ringcap" "$cmd")" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    case $cmd in
    report | stat) _ringcap_captures ;;
    esac
}
complete -F _ringcap ringcap
