#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Load speed (issue 37, item 4): ringcap export's RowBinary batches against
# the glue a user would write, report --format json | clickhouse-client
# INSERT FORMAT JSONEachRow into a table of the common columns. Same
# capture, same server (started here on loopback ports, its own data
# directory, killed at the end), same run; each way timed RUNS times,
# interleaved, the median wall time and events a second printed.
#
# Usage: tests/bench/clickhouse.sh [BUILD_DIR] [EVENTS] [RUNS]
set -eu
build=${1:-build}
n=${2:-300000}
runs=${3:-5}
rc=$build/ringcap
dir=$(mktemp -d /tmp/rc-chbench.XXXXXX)
http=$((20000 + $$ % 20000))
tcp=$((40000 + $$ % 20000))
mkdir -p "$dir/srv"
cat > "$dir/srv/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
<logger><level>warning</level><console>1</console></logger>
<http_port>$http</http_port><tcp_port>$tcp</tcp_port>
<listen_host>127.0.0.1</listen_host>
<path>$dir/srv/data/</path><tmp_path>$dir/srv/tmp/</tmp_path>
<user_files_path>$dir/srv/files/</user_files_path>
<format_schema_path>$dir/srv/schemas/</format_schema_path>
<users_config>/etc/clickhouse-server/users.xml</users_config>
<default_profile>default</default_profile><default_database>default</default_database>
<mark_cache_size>5368709</mark_cache_size>
</yandex>
XML
/usr/sbin/clickhouse-server --config-file="$dir/srv/config.xml" >"$dir/srv/log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null; rm -rf "$dir"' EXIT
ch() { clickhouse-client --port "$tcp" "$@"; }
i=0
until ch -q 'SELECT 1' >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "clickhouse-server did not start: $(tail -3 "$dir/srv/log")" >&2; exit 1; }
	sleep 0.1
done
"$rc" record -q -o "$dir/c.rcap" -e syscalls,sched -- "$build/rc_workload" getppid "$n"
events=$("$rc" report --summary "$dir/c.rcap" | sed -n 's/^# \([0-9]*\) events.*/\1/p')
ch -q 'CREATE DATABASE IF NOT EXISTS j'
ch -q 'CREATE TABLE IF NOT EXISTS j.t (ts UInt64, cpu UInt16, pid UInt32, tid UInt32, comm String, event String) ENGINE = MergeTree() ORDER BY ts'

now() { date +%s.%N; }
for r in $(seq "$runs"); do
	t0=$(now)
	"$rc" export --clickhouse="http://127.0.0.1:$http" --database="e$r" "$dir/c.rcap" 2>/dev/null
	t1=$(now)
	"$rc" report --format json "$dir/c.rcap" |
		ch --input_format_skip_unknown_fields=1 --query 'INSERT INTO j.t FORMAT JSONEachRow'
	t2=$(now)
	echo "$t1 - $t0" | bc >>"$dir/export"
	echo "$t2 - $t1" | bc >>"$dir/json"
done
[ "$(ch -q "SELECT count() FROM e1.syscalls")" -gt 0 ]
[ "$(ch -q "SELECT count() FROM j.t")" -eq $((events * runs)) ]
med() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
spread() { sort -n "$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s", lo, hi}'; }
e=$(med "$dir/export")
j=$(med "$dir/json")
printf 'events: %s, runs: %s (interleaved)\n' "$events" "$runs"
printf 'export (RowBinary):       %.3f s median (%s), %.0f events/s\n' "$e" "$(spread "$dir/export")" "$(echo "$events / $e" | bc -l)"
printf 'report json | JSONEachRow: %.3f s median (%s), %.0f events/s\n' "$j" "$(spread "$dir/json")" "$(echo "$events / $j" | bc -l)"
printf 'speed-up: %.1fx\n' "$(echo "$j / $e" | bc -l)"
