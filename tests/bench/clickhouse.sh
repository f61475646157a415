#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Load speed (issue 37, item 4): ringcap export against the glue a user
# would write, report --format json | clickhouse-client INSERT FORMAT
# JSONEachRow (input_format_skip_unknown_fields=1) into a table of the
# common columns, and against the floor: the export's own rows, encoded
# already, posted by curl from files, one kept-alive curl a lane (below).
# Like for like:
#  - the same capture, the same server (started here on loopback ports, its
#    own data directory, killed at the end), in the same run, each way timed
#    RUNS times, interleaved;
#  - the DDL outside the timed part for both: each round's export database
#    is made before its clock starts (from ringcap export --schema), as the
#    glue's table is (export's own CREATE ... IF NOT EXISTS still run in its
#    time: the few ms they take are its to pay);
#  - a round of each untimed first, on a server just started;
#  - both timed until the rows are queryable: each INSERT returns once its
#    part is in, and after the clock stops the rows are counted, exactly:
#    every round's views hold the capture's events, the glue's table
#    RUNS times them.
#  - each round into tables of its own, both ways: the export's database
#    e<round>, the glue's table j.t<round> (one table for every round, its
#    parts piling up, had the merges of earlier rounds' parts run in later
#    rounds, the export's among them);
#  - each timed run started with the server quiet: no merge running, so
#    that neither way's merges, in the background after its INSERTs, run
#    in the other's time (they did, interleaved: the export's merges in the
#    glue's run that followed, the glue's in the export's next). Each
#    way's server CPU time from its run's start until its merges are done
#    is counted, its merges' in it (/proc/PID/stat of the server).
# (log_queries=1 for both: the INSERTs' CPU time; part_log: the merges.)
# Prints the median wall time (its spread) and events a second of each, the
# ratio of the medians and the median of the rounds' ratios (their spread),
# and for a machine too loaded for wall times to say much alone, the CPU
# time of each: the client processes' (/usr/bin/time) and the server's
# in the INSERTs (system.query_log: clickhouse-client parses JSONEachRow
# itself and sends the server Native blocks). Merges after the INSERTs,
# in the background, are in neither.
#
# Usage: tests/bench/clickhouse.sh [BUILD_DIR] [EVENTS] [RUNS]
set -eu
command -v curl >/dev/null || { echo "the floor is posted by curl: apt install curl" >&2; exit 1; }
build=${1:-build}
n=${2:-1000000}
runs=${3:-3}
rc=$build/ringcap
dir=$(mktemp -d /tmp/rc-chbench.XXXXXX)
# below the ephemeral ports (32768-60999), and above the tests' (11000-30999)
http=$((31000 + $$ % 800 * 2))
tcp=$((http + 1))
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
<query_log><database>system</database><table>query_log</table>
<flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>
<part_log><database>system</database><table>part_log</table>
<flush_interval_milliseconds>1000</flush_interval_milliseconds></part_log>
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
for r in $(seq 0 "$runs"); do
	"$rc" export --schema --database="e$r" | ch --multiquery
	"$rc" export --schema --database="f$r" | ch --multiquery
	ch -q "CREATE TABLE j.t$r AS j.t"
done
# a round untimed first, each way (e0, j.w): a server started a moment ago
# pays for its memory's first use
"$rc" export --clickhouse="http://127.0.0.1:$http/?log_queries=1" --database=e0 "$dir/c.rcap" 2>/dev/null
"$rc" report --format json "$dir/c.rcap" |
	ch --input_format_skip_unknown_fields=1 --query 'INSERT INTO j.t0 FORMAT JSONEachRow'

# The floor: the export's own rows, as round 0 inserted them, encoded
# already (SELECTed back as Native, in its sorting order, in the sizes of
# round 0's INSERTs, one block each) and posted from files by two curl
# processes, one a lane, each on one kept-alive connection, two INSERTs in
# flight as the export's are, the manifest's row last: what the server
# costs to take these rows, with no capture to read or decode and no rows
# to encode. (A curl started for each body cost about 8 ms a post, a
# reviewer measured: not a floor.)
ch -q 'SYSTEM FLUSH LOGS'
mkdir "$dir/floor"
ch -q "SELECT extract(query, 'INTO e0[.]([a-z_]+)'), written_rows FROM system.query_log
	WHERE type = 2 AND query LIKE 'INSERT INTO e0.%' ORDER BY written_rows DESC" >"$dir/floor.inserts"
[ -s "$dir/floor.inserts" ] || { echo "the floor: no INSERT of round 0 in query_log" >&2; exit 1; }
while read -r tab rows; do
	k=$(ls "$dir/floor" | grep -c "^$tab[.][0-9]" || true)
	off=$(cat "$dir/floor/$tab.off" 2>/dev/null || echo 0)
	key=$(ch -q "SELECT sorting_key FROM system.tables WHERE database = 'e0' AND name = '$tab'")
	ch --max_block_size=10000000 -q "SELECT * FROM e0.$tab ${key:+ORDER BY $key} LIMIT $off, $rows
		FORMAT Native" >"$dir/floor/$tab.$k.nat"
	[ -s "$dir/floor/$tab.$k.nat" ] || { echo "the floor: no rows for $tab" >&2; exit 1; }
	echo $((off + rows)) >"$dir/floor/$tab.off"
done <"$dir/floor.inserts"
rm -f "$dir/floor/"*.off
[ -s "$dir/floor/manifest.0.nat" ] || { echo "the floor: no manifest row" >&2; exit 1; }
# curl's config for DB's lane N (0, 1: every other body; m: the manifest's), made before the clock
lanecfg() {
	ls "$dir/floor" | grep -v '^manifest[.]' | awk -v n="$2" 'NR % 2 == n' >"$dir/lane$2"
	[ "$2" = m ] && echo manifest.0.nat >"$dir/lane$2"
	sep=
	while read -r f; do
		t=${f%%.*}
		printf '%surl = "http://127.0.0.1:%s/?log_queries=1&query=INSERT%%20INTO%%20%s.%s%%20FORMAT%%20Native"\n' \
			"$sep" "$http" "$1" "$t"
		printf 'data-binary = "@%s"\nheader = "Expect:"\nheader = "Content-Type: application/octet-stream"\n' \
			"$dir/floor/$f"
		printf 'silent\nshow-error\nfail-with-body\n'
		sep='next
'
	done <"$dir/lane$2" >"$dir/lane$2.$1.cfg"
}
for r in $(seq "$runs"); do
	for n in 0 1 m; do lanecfg "f$r" $n; done
done
floor() { # DB: every body, two lanes, the manifest last; --fail-early: any failure fails it
	curl --fail-early -K "$dir/lane1.$1.cfg" >&2 &
	l=$!
	curl --fail-early -K "$dir/lane0.$1.cfg" >&2
	wait $l
	curl --fail-early -K "$dir/lanem.$1.cfg" >&2
}

now() { date +%s.%N; }
# the server's CPU time so far, in clock ticks (utime + stime)
srvcpu() { awk '{print $14 + $15}' "/proc/$srv/stat"; }
# until no merge runs, twice in a row 0.2 s apart (a merge starts a moment
# after the INSERT whose part it takes): at most a minute
quiet() {
	q=0 i=0
	while [ $q -lt 2 ] && [ $i -lt 300 ]; do
		sleep 0.2
		if [ "$(ch -q 'SELECT count() FROM system.merges')" = 0 ]; then q=$((q + 1)); else q=0; fi
		i=$((i + 1))
	done
}
tck=$(getconf CLK_TCK)
quiet
for r in $(seq "$runs"); do
	s0=$(srvcpu)
	t0=$(now)
	/usr/bin/time -a -o "$dir/export.cpu" -f '%U %S' \
		"$rc" export --clickhouse="http://127.0.0.1:$http/?log_queries=1" --database="e$r" \
		"$dir/c.rcap" 2>/dev/null
	t1=$(now)
	quiet
	s1=$(srvcpu)
	t1q=$(now)
	/usr/bin/time -a -o "$dir/json.cpu" -f '%U %S' sh -c "
		'$rc' report --format json '$dir/c.rcap' |
		clickhouse-client --port $tcp --log_queries=1 --input_format_skip_unknown_fields=1 \
			--query 'INSERT INTO j.t$r FORMAT JSONEachRow'"
	t2=$(now)
	quiet
	s2=$(srvcpu)
	t2q=$(now)
	floor "f$r"
	t3=$(now)
	quiet
	echo "$t3 - $t2q" | bc >>"$dir/floor.wall"
	echo "$t1 - $t0" | bc >>"$dir/export"
	echo "$t2 - $t1q" | bc >>"$dir/json"
	echo "($s1 - $s0) / $tck" | bc -l >>"$dir/export.srv"
	echo "($s2 - $s1) / $tck" | bc -l >>"$dir/json.srv"
done
for r in $(seq "$runs"); do
	got=$(ch -q "SELECT (SELECT count() FROM e$r.syscalls) + (SELECT count() FROM e$r.sched) + (SELECT count() FROM e$r.events) + (SELECT count() FROM e$r.samples)")
	[ "$got" -eq "$events" ] || { echo "round $r: export's views hold $got events, not $events" >&2; exit 1; }
done
for r in $(seq "$runs"); do
	got=$(ch -q "SELECT (SELECT count() FROM f$r.syscalls) + (SELECT count() FROM f$r.sched) + (SELECT count() FROM f$r.events) + (SELECT count() FROM f$r.samples)")
	[ "$got" -eq "$events" ] || { echo "round $r: the floor's views hold $got events, not $events" >&2; exit 1; }
done
for r in $(seq "$runs"); do
	got=$(ch -q "SELECT count() FROM j.t$r")
	[ "$got" -eq "$events" ] || { echo "round $r: the glue's table holds $got rows, not $events" >&2; exit 1; }
done
ch -q 'SYSTEM FLUSH LOGS'
cpu() {
	ch -q "SELECT round(sum(ProfileEvents.Values[indexOf(ProfileEvents.Names, 'UserTimeMicroseconds')] +
		ProfileEvents.Values[indexOf(ProfileEvents.Names, 'SystemTimeMicroseconds')]) / 1e6 / $runs, 3)
		FROM system.query_log WHERE type = 2 AND query LIKE '$1' AND query NOT LIKE '%e0.%' AND query NOT LIKE '%j.t0 %'
		AND query NOT LIKE '%f0.%'"
}
# the least and most of a round's: $1 as cpu()'s, $2 what names a round in the query
cpuspread() {
	ch -q "SELECT round(min(c), 3), round(max(c), 3) FROM (SELECT extract(query, '$2') AS k,
		sum(ProfileEvents.Values[indexOf(ProfileEvents.Names, 'UserTimeMicroseconds')] +
		ProfileEvents.Values[indexOf(ProfileEvents.Names, 'SystemTimeMicroseconds')]) / 1e6 AS c
		FROM system.query_log WHERE type = 2 AND query LIKE '$1' AND query NOT LIKE '%e0.%'
		AND query NOT LIKE '%j.t0 %' GROUP BY k)" | tr '\t' '-'
}
med() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
spread() { sort -n "$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f-%.3f", lo, hi}'; }
e=$(med "$dir/export")
j=$(med "$dir/json")
printf 'events: %s, runs: %s (interleaved); load average: %s\n' "$events" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'export (Native):           %.3f s median (%s), %.0f events/s; server CPU in its INSERTs %s s a round (%s)\n' \
	"$e" "$(spread "$dir/export")" "$(echo "$events / $e" | bc -l)" "$(cpu 'INSERT INTO e%')" \
	"$(cpuspread 'INSERT INTO e%' '^INSERT INTO ([a-z0-9]+)')"
printf 'report json | JSONEachRow: %.3f s median (%s), %.0f events/s; server CPU in its INSERTs %s s a round (%s)\n' \
	"$j" "$(spread "$dir/json")" "$(echo "$events / $j" | bc -l)" "$(cpu 'INSERT INTO j.t%')" \
	"$(cpuspread 'INSERT INTO j.t%' '^INSERT INTO ([a-z0-9]+[.][a-z0-9]+)')"
f=$(med "$dir/floor.wall")
printf 'floor (the same rows, Native, posted by curl from files): %.3f s median (%s), %.0f events/s; server CPU in its INSERTs %s s a round\n' \
	"$f" "$(spread "$dir/floor.wall")" "$(echo "$events / $f" | bc -l)" "$(cpu 'INSERT INTO f%')"
printf 'speed-up: %.2fx (the floor: %.2fx)\n' "$(echo "$j / $e" | bc -l)" "$(echo "$j / $f" | bc -l)"
# each round's two runs, one after the other, as a pair: the ratio of each
# pair, its median and spread, in which what slows both at that moment
# (another process, the filesystem) counts less than in the medians'
paste "$dir/json" "$dir/export" | awk '{print $1 / $2}' >"$dir/ratio"
paste "$dir/json" "$dir/floor.wall" | awk '{print $1 / $2}' >"$dir/ratio.floor"
printf 'speed-up pair by pair: %.2fx median (%s); the floor: %.2fx (%s)\n' "$(med "$dir/ratio")" \
	"$(spread "$dir/ratio")" "$(med "$dir/ratio.floor")" "$(spread "$dir/ratio.floor")"
# CPU time, which a loaded machine's waits are not part of: the client's
# (ringcap export; report, sh and clickhouse-client) and the INSERTs' on the server
ccpu() { awk -v n="$runs" '{s += $1 + $2} END {printf "%.3f", s / n}' "$1"; }
ec=$(echo "$(ccpu "$dir/export.cpu") + $(cpu 'INSERT INTO e%')" | bc -l)
jc=$(echo "$(ccpu "$dir/json.cpu") + $(cpu 'INSERT INTO j.t%')" | bc -l)
printf 'CPU a round, client + server INSERTs: export %s + %s s, the glue %s + %s s: %.2fx less\n' \
	"$(ccpu "$dir/export.cpu")" "$(cpu 'INSERT INTO e%')" "$(ccpu "$dir/json.cpu")" \
	"$(cpu 'INSERT INTO j.t%')" "$(echo "$jc / $ec" | bc -l)"
# the server's CPU time from each run's start until its merges were done,
# and the merges themselves (part_log: how many, their time on the clock)
mcount() {
	ch -q "SELECT count(), round(sum(duration_ms) / 1000 / $runs, 3) FROM system.part_log
		WHERE event_type = 2 AND $1" | tr '\t' ' '
}
es=$(ccpu "$dir/export.srv")
js=$(ccpu "$dir/json.srv")
printf 'CPU a round, client + server until its merges are done: export %s + %s s, the glue %s + %s s: %.2fx less\n' \
	"$(ccpu "$dir/export.cpu")" "$es" "$(ccpu "$dir/json.cpu")" "$js" \
	"$(echo "($(ccpu "$dir/json.cpu") + $js) / ($(ccpu "$dir/export.cpu") + $es)" | bc -l)"
printf 'merges in all rounds (how many; their seconds a round): export %s, the glue %s\n' \
	"$(mcount "database LIKE 'e%' AND database != 'e0'")" \
	"$(mcount "database = 'j' AND table != 't0'")"
