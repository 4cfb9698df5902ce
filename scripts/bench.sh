#!/usr/bin/env bash
# Benchmark stage (tooling, not part of the binary): times `rsmreport build`
# on simulated data of growing size and prints a Markdown table plus the
# machine it ran on, ready to paste into BENCHMARKS.md. Writes only under the
# cargo target folder (the cached data and the scratch output folders); never
# touches the repository's files.
#
#     scripts/bench.sh                      # 10k, 100k, 1M, 10M responses, 3 runs each
#     BENCH_SIZES="100000 1000000" BENCH_RUNS=5 scripts/bench.sh
#
# Environment:
#   BENCH_SIZES    responses per data set (default "10000 100000 1000000 10000000")
#   BENCH_RUNS     timed runs per size; the median is reported (default 3)
#   BENCH_TIMINGS  1 (default): one extra run per size with RSMREPORT_TIMINGS=1
#                  for the per-stage breakdown; 0: skip it
#   BENCH_COMPARE  1 (default): also time `compare` of two versions on 1M responses
#                  and `summarize` of 20 versions of 100k (compare spec 4); 0: skip
#   BENCH_TRAIN    1 (default): also time `train` on 1,000,000 training and
#                  250,000 evaluation responses x 40 features (LinearRegression,
#                  every section; data from scripts/bench_train.py, cached in
#                  $CARGO_TARGET_DIR/bench-data/train-v1; issue 52); 0: skip
#   BENCH_ANNOTATIONS  1 (default): also time `agree` on 1M items x 5 raters and
#                  `preferences` on 1M pairs x 5 annotators (generated), also
#                  with 10 models (the traits-by-model view); 0: skip
#   BENCH_BIN      time this rsmreport binary instead of building one (e.g. an
#                  older build, for before/after comparisons; it must have
#                  `simulate` unless the data are cached already). The
#                  default is the stripped release build; to profile with
#                  perf, build `cargo build --profile profiling` (line
#                  tables) and pass target/profiling/rsmreport here
#   BENCH_PYTHON   a Python with the rsmreport module (a release build:
#                  `maturin develop --release`), pandas and pyarrow: also
#                  time `rsmreport.build(cfg, predictions=df)` on the
#                  BENCH_PYTHON_N-response data (default 1,000,000) as a pandas
#                  DataFrame in memory, side by side with the command on the
#                  same data as parquet (issue 53: at most 1.1x its time, its
#                  peak plus the input's Arrow size, one small table in
#                  milliseconds); unset: skip
#   BENCH_PYTHON_CLASSIFY  with BENCH_PYTHON: a folder made by
#                  `scripts/classify_bench.py make DIR --decimals 6 --subgroup`;
#                  also times `rsmreport.classify` on its data frame against
#                  the command on its parquet file
#   CARGO_TARGET_DIR  build folder (default ~/.cache/rsmreport-target); the
#                  simulated data are cached in $CARGO_TARGET_DIR/bench-data
#
# Every experiment has every section: two subgroups (L1 with six uneven
# levels, gender), a second human score on 30% of the responses, scaling with
# a separate scale file, a few zero and non-numeric scores, fairness
# analyses, confidence intervals (1,000 replicates; each size is also timed
# without them, side by side) and the HTML report. Wall time and peak RSS come from GNU time
# (`/usr/bin/time -v`; Debian: `apt-get install -y time`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$HOME/.cache/rsmreport-target}"
sizes="${BENCH_SIZES:-10000 100000 1000000 10000000}"
runs="${BENCH_RUNS:-3}"
timings="${BENCH_TIMINGS:-1}"
# Bump when the simulated design below changes, so cached files are rebuilt.
data_version="v1"
data="$target/bench-data/$data_version"
scratch="$target/bench-scratch"

if [[ ! -x /usr/bin/time ]]; then
    echo "bench.sh needs GNU time at /usr/bin/time (Debian/Ubuntu: apt-get install -y time)" >&2
    exit 2
fi

if [[ -n "${BENCH_BIN:-}" ]]; then
    bin="$BENCH_BIN"
else
    echo "building the release binary ..." >&2
    (cd "$here" && CARGO_TARGET_DIR="$target" cargo build --release --locked --quiet)
    bin="$target/release/rsmreport"
fi
mkdir -p "$data" "$scratch"

# Median of the numbers on stdin.
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# "h:mm:ss" or "m:ss.ss" to seconds.
to_seconds() { awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.3f\n", s}'; }

human_n() {
    local n=$1
    if ((n >= 1000000 && n % 1000000 == 0)); then echo "$((n / 1000000))M"
    elif ((n >= 1000 && n % 1000 == 0)); then echo "$((n / 1000))k"
    else echo "$n"; fi
}

# target "seconds MB" per size (the issue's targets); empty = none.
target_for() {
    case "$1" in
        100000) echo "0.5 150" ;;
        1000000) echo "3 600" ;;
        10000000) echo "30 5120" ;;
        *) echo "" ;;
    esac
}

# The simulated data set of $1 responses, made once and cached.
simulate_once() {
    local n=$1 name="sim_$1"
    if [[ ! -f "$data/$name.toml" ]]; then
        echo "simulating $n responses ..." >&2
        rm -f "$data/$name.csv" "$data/${name}_scale.csv"
        "$bin" simulate -n "$n" --seed 20240611 \
            --out "$data/$name.csv" --scale-out "$data/${name}_scale.csv" --scale-n 10000 \
            --write-config "$data/$name.toml" \
            --system-scale 0.8 --system-offset 0.35 --group-bias -0.15 \
            --zero-scores 0.003 --non-numeric 0.001 >&2
    fi
}

# Times `rsmreport "$@"` BENCH_RUNS times; prints "median-wall median-rss-MB runs".
time_runs() {
    local walls=() rsss=() r wall rss
    for ((r = 1; r <= runs; r++)); do
        sync
        /usr/bin/time -v -o "$scratch/time.txt" "$bin" "$@" >/dev/null 2>&1 || true
        wall=$(grep "Elapsed (wall clock)" "$scratch/time.txt" | awk '{print $NF}' | to_seconds)
        rss=$(grep "Maximum resident set size" "$scratch/time.txt" | awk '{print $NF}')
        walls+=("$wall"); rsss+=("$((rss / 1024))")
        echo "  $1 run $r: ${wall} s, $((rss / 1024)) MB" >&2
    done
    echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${rsss[@]}" | median) $(IFS=' '; echo "${walls[*]}")"
}

rows=()
stage_rows=()
for n in $sizes; do
    name="sim_$n"
    simulate_once "$n"
    size_mb=$(du -m "$data/$name.csv" | cut -f1)
    # The same experiment without intervals, timed side by side (uncertainty
    # spec 6: intervals may cost at most 1.5x the time and 20% more memory).
    off="$data/${name}_no_intervals.toml"
    # (a top-level key, so it goes first: the file may end in a table)
    { echo 'intervals = false'; sed -e "s/^experiment_id = .*/experiment_id = \"${name}_off\"/" "$data/$name.toml"; } >"$off"
    out="$scratch/out_$n"
    walls=(); rsss=(); walls_off=(); rsss_off=()
    for ((r = 1; r <= runs; r++)); do
        for mode in off on; do
            cfg="$data/$name.toml"; [[ $mode == off ]] && cfg="$off"
            rm -rf "$out"
            sync
            /usr/bin/time -v -o "$scratch/time.txt" "$bin" build "$cfg" --output-dir "$out" >/dev/null
            wall=$(grep "Elapsed (wall clock)" "$scratch/time.txt" | awk '{print $NF}' | to_seconds)
            rss=$(grep "Maximum resident set size" "$scratch/time.txt" | awk '{print $NF}')
            if [[ $mode == on ]]; then walls+=("$wall"); rsss+=("$((rss / 1024))")
            else walls_off+=("$wall"); rsss_off+=("$((rss / 1024))"); fi
            echo "  $(human_n "$n") run $r ($mode): ${wall} s, $((rss / 1024)) MB" >&2
        done
    done
    med_wall=$(printf '%s\n' "${walls[@]}" | median)
    med_rss=$(printf '%s\n' "${rsss[@]}" | median)
    off_wall=$(printf '%s\n' "${walls_off[@]}" | median)
    off_rss=$(printf '%s\n' "${rsss_off[@]}" | median)
    cost=$(awk -v a="$med_wall" -v b="$off_wall" 'BEGIN {printf "%.2fx", (b > 0) ? a / b : 0}')
    rss_growth=$(awk -v a="$med_rss" -v b="$off_rss" 'BEGIN {printf "%+.0f%%", (b > 0) ? (a / b - 1) * 100 : 0}')
    per_resp=$(awk -v w="$med_wall" -v n="$n" 'BEGIN {printf "%.2f", w / n * 1e6}')
    tgt=$(target_for "$n")
    if [[ -n "$tgt" ]]; then
        read -r tw tm <<<"$tgt"
        met=$(awk -v w="$med_wall" -v m="$med_rss" -v tw="$tw" -v tm="$tm" \
            'BEGIN {a = (w <= tw) ? "yes" : "no"; b = (m <= tm) ? "yes" : "no"; print a " / " b}')
        tgt_text="<= $tw s, <= $tm MB"
    else
        met="-"
        tgt_text="-"
    fi
    rows+=("| $(human_n "$n") | $size_mb MB | $med_wall s | $(IFS=' '; echo "${walls[*]}") | $per_resp | $med_rss MB | $off_wall s, $off_rss MB | $cost, $rss_growth | $tgt_text | $met |")

    if [[ "$timings" == 1 ]]; then
        rm -rf "$out"
        RSMREPORT_TIMINGS=1 "$bin" build "$data/$name.toml" --output-dir "$out" 2>"$scratch/stages.txt" >/dev/null
        # "timing: <stage>: <ms> ms, RSS <now> MB, peak <max> MB" -> "<stage>=<ms> (<max>)"
        stages=$(awk -F': ' '/^timing: /{
            peak = ""; if (match($3, /peak [0-9]+/)) peak = " (" substr($3, RSTART + 5, RLENGTH - 5) ")"
            printf "%s=%.0f%s ", $2, $3 + 0, peak}' "$scratch/stages.txt")
        stage_rows+=("| $(human_n "$n") | $stages|")
    fi
    rm -rf "$out"
done

# compare and summarize on archived folders (compare spec 4): two versions
# of an engine on the same 1M responses (the same seed, another system
# accuracy: the responses pair by id, every statistic differs), 1,000
# paired replicates; and 20 versions of 100k responses (20 system
# accuracies), each summarized against the first.
version_once() {
    local n=$1 r2=$2 name="sim_$1_r2_$2"
    if [[ ! -f "$data/$name.toml" ]]; then
        echo "simulating $n responses, system r2 $r2 ..." >&2
        "$bin" simulate -n "$n" --seed 20240611 --system-r2 "$r2" \
            --out "$data/$name.csv" --write-config "$data/$name.toml" \
            --group-bias -0.15 --zero-scores 0.003 --non-numeric 0.001 >&2
    fi
    echo "$data/$name.toml"
}
compare_rows=()
if [[ "${BENCH_COMPARE:-1}" == 1 ]]; then
    rm -rf "$scratch"/arch_* "$scratch"/sum_* "$scratch/cmp_out" "$scratch/sum_out"
    "$bin" build "$(version_once 1000000 0.60)" --output-dir "$scratch/arch_v1" >/dev/null
    "$bin" build "$(version_once 1000000 0.75)" --output-dir "$scratch/arch_v2" >/dev/null
    folders=()
    for ((k = 0; k < 20; k++)); do
        r2=$(awk -v k="$k" 'BEGIN {printf "%.3f", 0.50 + 0.015 * k}')
        "$bin" build "$(version_once 100000 "$r2")" --output-dir "$scratch/sum_$k" >/dev/null
        folders+=("$scratch/sum_$k")
    done
    read -r w m all < <(time_runs compare "$scratch/arch_v1" "$scratch/arch_v2" --output-dir "$scratch/cmp_out" --force)
    met=$(awk -v w="$w" 'BEGIN {print (w <= 3) ? "yes" : "no"}')
    compare_rows+=("| \`compare\` | two versions on the same 1M responses (system r2 0.60 and 0.75), 1,000 paired replicates | $w s | $all | $m MB | <= 3 s | $met |")
    read -r w m all < <(time_runs summarize "${folders[@]}" --output-dir "$scratch/sum_out" --force)
    met=$(awk -v w="$w" 'BEGIN {print (w <= 3) ? "yes" : "no"}')
    compare_rows+=("| \`summarize\` | 20 versions of 100k responses (system r2 0.50-0.785) | $w s | $all | $m MB | <= 3 s | $met |")
    rm -rf "$scratch"/arch_* "$scratch"/sum_* "$scratch/cmp_out" "$scratch/sum_out"
fi

# agree and preferences at scale (agreement spec, preferences spec):
# 1,000,000 items x 5 raters, and 1,000,000 pairs x 5 annotators, made
# deterministically with awk (an LCG, so the same files on every machine).
annotation_rows=()
if [[ "${BENCH_ANNOTATIONS:-1}" == 1 ]]; then
    ann="$data/agree_1m.csv"
    if [[ ! -f "$ann" ]]; then
        echo "writing 1M items x 5 raters ..." >&2
        awk 'BEGIN {
            s = 12345; m = 2147483648
            print "item,r1,r2,r3,r4,r5"
            for (i = 1; i <= 1000000; i++) {
                s = (1103515245 * s + 12345) % m; t = 1 + int(6 * s / m)
                line = "i" i
                for (r = 1; r <= 5; r++) {
                    s = (1103515245 * s + 12345) % m; u = s / m
                    v = t; if (u < 0.2) v = t - 1; else if (u > 0.8) v = t + 1
                    if (v < 1) v = 1; if (v > 6) v = 6
                    if (u > 0.97) v = ""
                    line = line "," v
                }
                print line
            }
        }' >"$ann"
    fi
    cat >"$data/agree_1m.toml" <<EOF
experiment_id = "agree_1m"
annotations_file = "agree_1m.csv"
layout = "wide"
item_column = "item"
rater_columns = ["r1", "r2", "r3", "r4", "r5"]
level = "ordinal"
categories = [1, 2, 3, 4, 5, 6]
EOF
    pairs="$data/pairs_1m.csv"
    if [[ ! -f "$pairs" ]]; then
        echo "writing 1M pairs x 5 annotators ..." >&2
        awk 'BEGIN {
            s = 54321; m = 2147483648
            split("text_a text_b tie", vote, " ")
            print "id,text_a,text_b,reference,j1,j2,j3,j4,j5,source"
            for (i = 1; i <= 1000000; i++) {
                s = (1103515245 * s + 12345) % m; la = 5 + int(40 * s / m)
                s = (1103515245 * s + 12345) % m; lb = 5 + int(40 * s / m)
                s = (1103515245 * s + 12345) % m; ref = 1 + int(2.1 * s / m); if (ref > 3) ref = 3
                line = "p" i "," substr("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1, la) "," \
                    substr("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 1, lb) "," vote[ref]
                for (j = 1; j <= 5; j++) {
                    s = (1103515245 * s + 12345) % m; u = s / m
                    v = (u < 0.7) ? ref : 1 + int(3 * u) % 3
                    line = line "," vote[v]
                }
                print line "," ((i % 3 == 0) ? "chat" : (i % 3 == 1) ? "code" : "math")
            }
        }' >"$pairs"
    fi
    cat >"$data/pairs_1m.toml" <<EOF
experiment_id = "pairs_1m"
pairs_file = "pairs_1m.csv"
id_column = "id"
text_a_column = "text_a"
text_b_column = "text_b"
reference_column = "reference"
annotator_columns = ["j1", "j2", "j3", "j4", "j5"]
subset_columns = ["source"]
EOF
    read -r w m all < <(time_runs agree "$data/agree_1m.toml" --output-dir "$scratch/agree_out" --force)
    met=$(awk -v w="$w" -v m="$m" 'BEGIN {print ((w <= 3) ? "yes" : "no") " / " ((m <= 1024) ? "yes" : "no")}')
    annotation_rows+=("| \`agree\` | 1M items x 5 raters (wide, 1-6, 3% missing) | $w s | $all | $m MB | <= 3 s, <= 1 GB | $met |")
    read -r w m all < <(time_runs preferences "$data/pairs_1m.toml" --output-dir "$scratch/pref_out" --force)
    met=$(awk -v w="$w" 'BEGIN {print (w <= 3) ? "yes" : "no"}')
    annotation_rows+=("| \`preferences\` | 1M pairs x 5 annotators, 3 subsets | $w s | $all | $m MB | <= 3 s | $met |")
    # The same pairs with the models of both texts (10 models, an LCG
    # again): the model view of preferences spec 6 on top.
    models="$data/pairs_1m_models.csv"
    if [[ ! -f "$models" ]]; then
        echo "writing 1M pairs x 5 annotators with 10 models ..." >&2
        awk -F, 'BEGIN { s = 777; m = 2147483648; OFS = "," }
            NR == 1 { print $0, "model_a", "model_b"; next }
            {
                s = (1103515245 * s + 12345) % m; a = int(10 * s / m)
                s = (1103515245 * s + 12345) % m; b = int(10 * s / m)
                print $0, "m" a, "m" b
            }' "$pairs" >"$models"
    fi
    { sed -e 's/^experiment_id = .*/experiment_id = "pairs_1m_models"/' \
          -e 's/^pairs_file = .*/pairs_file = "pairs_1m_models.csv"/' "$data/pairs_1m.toml"
      echo 'model_a_column = "model_a"'; echo 'model_b_column = "model_b"'; } >"$data/pairs_1m_models.toml"
    read -r w m all < <(time_runs preferences "$data/pairs_1m_models.toml" --output-dir "$scratch/pref_models_out" --force)
    met=$(awk -v w="$w" 'BEGIN {print (w <= 3) ? "yes" : "no"}')
    annotation_rows+=("| \`preferences\`, traits by model | 1M pairs x 5 annotators, 3 subsets, 10 models | $w s | $all | $m MB | <= 3 s | $met |")
    rm -rf "$scratch/agree_out" "$scratch/pref_out" "$scratch/pref_models_out"
fi

# train at scale (issue 52): 1,000,000 training and 250,000 evaluation
# responses x 40 features, LinearRegression, every section.
train_rows=()
if [[ "${BENCH_TRAIN:-1}" == 1 ]]; then
    tdata="$data/train-v1"
    if [[ ! -f "$tdata/train.toml" ]]; then
        echo "writing the train benchmark data (1M + 250k x 40 features; a few minutes) ..." >&2
        python3 "$here/scripts/bench_train.py" "$tdata"
    fi
    read -r w m all < <(time_runs train "$tdata/train.toml" --output-dir "$scratch/train_out" --force)
    met=$(awk -v w="$w" -v m="$m" 'BEGIN { print (w <= 5 && m <= 2048) ? "yes" : "no" }')
    train_rows+=("| \`train\` | 1M train + 250k test x 40 features, LinearRegression, every section | $w s | $all | $m MB | <= 5 s, <= 2 GB | $met |")
fi

# The Python module on a DataFrame in memory against the command on the
# same data as parquet (issue 53).
python_rows=()
# One row of the Python table: the command on the parquet file against
# the module's call on the same data as a pandas DataFrame in memory.
python_row() {
    local kind="$1" pcfg="$2" pq="$3" shape="$4" cw cm all pys=() pw pm tm am bm met
    read -r cw cm all < <(time_runs "$kind" "$pcfg" --output-dir "$scratch/py_cli_out" --force)
    for ((r = 1; r <= runs; r++)); do
        pys+=("$("$BENCH_PYTHON" "$here/scripts/bench_python.py" "$pcfg" "$pq" "$scratch/py_out" "$kind")")
        echo "  python $kind run $r: ${pys[-1]}" >&2
    done
    field() { printf '%s\n' "${pys[@]}" | "$BENCH_PYTHON" -c "import sys, json; [print(json.loads(l)['$1']) for l in sys.stdin]" | median; }
    pw=$(field build_s); pm=$(field peak_mb); tm=$(field table_ms); am=$(field arrow_mb); bm=$(field base_mb)
    met=$(awk -v pw="$pw" -v cw="$cw" -v pm="$pm" -v cm="$cm" -v am="$am" -v bm="$bm" -v tm="$tm" \
        'BEGIN { a = (pw <= 1.1 * cw) ? "yes" : "no"; b = (pm <= cm + am) ? "yes" : "no";
                 c = (tm < 100) ? "yes" : "no"; print a " / " b " / " c }')
    python_rows+=("| \`$kind\`: $shape | $cw s, $cm MB | $pw s, peak $pm MB (before the call $bm MB) | $am MB | $tm ms | $met |")
    rm -rf "$scratch/py_cli_out" "$scratch/py_out"
}

python_rows=()
if [[ -n "${BENCH_PYTHON:-}" ]]; then
    pn="${BENCH_PYTHON_N:-1000000}"
    simulate_once "$pn"
    pq="$data/sim_${pn}.parquet"
    if [[ ! -f "$pq" ]]; then
        # The CSV as pandas reads it, as parquet (the same data for both).
        "$BENCH_PYTHON" -c 'import sys, pandas as pd; pd.read_csv(sys.argv[1]).to_parquet(sys.argv[2], index=False)' \
            "$data/sim_${pn}.csv" "$pq"
    fi
    pcfg="$data/sim_${pn}_parquet.toml"
    sed -e "s|^predictions_file = .*|predictions_file = \"sim_${pn}.parquet\"|" "$data/sim_${pn}.toml" >"$pcfg"
    python_row build "$pcfg" "$pq" "$(human_n "$pn") responses, h1, h2 on 30%, two subgroups, every section, intervals"
    if [[ -n "${BENCH_PYTHON_CLASSIFY:-}" ]]; then
        python_row classify "$BENCH_PYTHON_CLASSIFY/exp_parquet.toml" "$BENCH_PYTHON_CLASSIFY/bench.parquet" \
            "1M items x 3 systems x 10 classes, probabilities with 6 decimals, a 3-level subgroup, intervals"
    fi
fi

cpu=$(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
rev=$(cd "$here" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(cd "$here" && git status --porcelain 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)

echo
echo "### Results ($(date -u +%Y-%m-%d), commit $rev$dirty)"
echo
echo "| responses | input (csv) | median wall | runs (s) | µs / response | peak RSS (median) | without intervals | intervals cost (time, memory) | target | met (time / memory) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if ((${#stage_rows[@]})); then
    echo
    echo "Per-stage wall time of one extra run (\`RSMREPORT_TIMINGS=1\`, milliseconds; in"
    echo "brackets the peak RSS so far in MB, where \`/proc/self/status\` exists):"
    echo
    echo "| responses | stages: ms (peak MB) |"
    echo "|---|---|"
    printf '%s\n' "${stage_rows[@]}"
fi
if ((${#compare_rows[@]})); then
    echo
    echo "\`compare\` and \`summarize\` on archived output folders (release build):"
    echo
    echo "| command | folders | median wall | runs (s) | peak RSS (median) | target | met |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${compare_rows[@]}"
fi
if ((${#annotation_rows[@]})); then
    echo
    echo "\`agree\` and \`preferences\` at scale (release build):"
    echo
    echo "| command | data | median wall | runs (s) | peak RSS (median) | target | met |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${annotation_rows[@]}"
fi
if ((${#python_rows[@]})); then
    echo
    echo "\`rsmreport.build(cfg, predictions=df)\` (Python, a pandas DataFrame in memory, release build) against \`rsmreport build\` on the same data as parquet:"
    echo
    echo "| data | command (parquet): wall, peak RSS | Python: wall of the call, peak RSS | DataFrame's Arrow size | \`r.tables[\"eval\"]\` afterwards | met: <= 1.1x time / peak <= command's + Arrow size / table < 100 ms |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${python_rows[@]}"
fi
if ((${#train_rows[@]})); then
    echo
    echo "\`train\` at scale (release build):"
    echo
    echo "| command | data | median wall | runs (s) | peak RSS (median) | target | met |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${train_rows[@]}"
fi
echo
echo "### Machine"
echo
echo "* CPU: $cpu, $(nproc) cores available (\`nproc\`)"
echo "* memory: $mem"
echo "* kernel: $(uname -sr)"
echo "* $(rustc --version)"
echo "* command: \`BENCH_SIZES=\"$sizes\" BENCH_RUNS=$runs scripts/bench.sh\`"
