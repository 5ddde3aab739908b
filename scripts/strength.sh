#!/usr/bin/env bash
# The strength benchmark: places a model on the project's fixed ladder (random, greedy,
# alpha-beta at depths 2/4/6, GRhino levels 1-4; their ratings are stored in
# scripts/ladder/ladder.csv with the command that measured them) and prints its rating
# with a 95% interval and its score against each opponent; writes OUT/strength.json and
# OUT/strength.png.
#
# Usage: scripts/strength.sh (--minutes M | --checkpoint FILE | --model FILE) [OPTIONS]
#   scripts/strength.sh --minutes 60                     train from scratch (quickstart), then rate
#   scripts/strength.sh --minutes 60 --config configs/quickstart.yaml --set train.learning_rate=0.01
#   scripts/strength.sh --checkpoint runs/quickstart/checkpoints/latest.ckpt
#   scripts/strength.sh --model model.ozm --games 40
#
# One of --minutes M (train M minutes on --config, default configs/quickstart.yaml, with
# any --set KEY=VALUE overrides of its keys), --checkpoint FILE or --model FILE (an
# exported model). The model searches a fixed budget (--playouts, default 200, one
# thread) and also plays its raw policy (one playout); every match is --games games
# (default 20) from random 4-ply openings, each with both colours, --parallel at once
# (default: the number of cores). --level5 K adds K games against GRhino level 5 (minutes
# a game; reported, not on the ladder). --reference N adds N games head-to-head against the
# fixed 60-minute reference model (scripts/ladder/reference-60min.ozm, a rung of the
# ladder) at the same budget, from paired openings: the Elo difference with its 95%
# interval (400 games: about +-35). --upper N plays N games against each of the ladder's
# upper rungs: the reference at 200, 800 and 3200 playouts and the 150-minute reference
# model (scripts/ladder/reference-150min.ozm) at 200, for models near or above the
# reference, where GRhino 4 no longer tells them apart. --out OUT defaults to runs/strength-DATE-TIME;
# training writes OUT/run, an exported checkpoint is OUT/model.ozm, the games go to
# OUT/games. --ladder FILE rates on another ladder CSV (as `othello-zero elo --csv`
# writes). The program is built in build/ (Debian's CPU LibTorch).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

minutes="" config=configs/quickstart.yaml checkpoint="" model="" games=20 playouts=200
level5=0 reference=0 upper=0 parallel=$(nproc) out="" sets=() ladder=scripts/ladder/ladder.csv
reference_model=scripts/ladder/reference-60min.ozm
reference150_model=scripts/ladder/reference-150min.ozm
while [ $# -gt 0 ]; do
  if [ "${1#--}" != "$1" ] && [ "$1" != --help ] && [ $# -lt 2 ]; then
    echo "scripts/strength.sh: $1 needs a value (see --help)" >&2
    exit 2
  fi
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --checkpoint) checkpoint=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --playouts) playouts=$2; shift 2 ;;
    --level5) level5=$2; shift 2 ;;
    --reference) reference=$2; shift 2 ;;
    --upper) upper=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ladder) ladder=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    *) echo "scripts/strength.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for pair in "--games:$games" "--playouts:$playouts" "--level5:$level5" "--reference:$reference" "--upper:$upper" \
            "--parallel:$parallel"; do
  case "${pair#*:}" in
    ''|*[!0-9]*) echo "scripts/strength.sh: ${pair%%:*} must be a whole number, not '${pair#*:}'" >&2
                 exit 2 ;;
  esac
done
sources=0
[ -n "$minutes" ] && sources=$((sources + 1))
[ -n "$checkpoint" ] && sources=$((sources + 1))
[ -n "$model" ] && sources=$((sources + 1))
if [ "$sources" -ne 1 ]; then
  echo "scripts/strength.sh: give one of --minutes M, --checkpoint FILE or --model FILE" >&2
  exit 2
fi
out=${out:-runs/strength-$(date +%Y%m%d-%H%M%S)}
if [ -e "$out/games/games.ggf" ]; then
  echo "scripts/strength.sh: $out already holds benchmark games (they would be counted twice):" \
    "give another --out" >&2
  exit 2
fi
mkdir -p "$out/games"
exe=build/cli/othello-zero

oz_install_packages "${OZ_PACKAGES[@]}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOZ_TORCH=ON >/dev/null
cmake --build build -j "$(nproc)" --target othello-zero

if [ -n "$minutes" ]; then
  echo "== training $minutes minutes on $config (run directory $out/run)"
  "$exe" train --config "$config" --run-dir "$out/run" --set "run.minutes=$minutes" "${sets[@]}"
  checkpoint=$out/run/checkpoints/latest.ckpt
fi
if [ -n "$checkpoint" ]; then
  model=$out/model.ozm
  "$exe" export "$checkpoint" -o "$model"
fi

rhino=/usr/games/gtp-rhino
opponents=(--player random --player greedy --player ab:2 --player ab:4 --player ab:6)
for level in 1 2 3 4; do
  opponents+=(--player "rhino$level@gtp:$rhino -l $level")
done
match() {  # NAME SPEC GAMES OPPONENTS... (results in $out/games/${json_name:-NAME}.json)
  local name=$1 spec=$2 count=$3 file=${json_name:-$1}
  shift 3
  echo "== $name: $count games against each opponent"
  "$exe" arena --gauntlet --player "$name@$spec" "$@" --games "$count" --openings random:4 \
    --parallel "$parallel" --seed 1 --out "$out/games" --json "$out/games/$file.json" \
    --engine-timeout 600 >"$out/$file.txt"
  cat "$out/$file.txt"
}
match "search$playouts" "model:$model,visits=$playouts,threads=1" "$games" "${opponents[@]}"
match policy "model:$model,visits=1" "$games" "${opponents[@]}"
# The ladder's rungs of the reference model: reference60 is it at 200 playouts,
# reference60-P at P playouts (play's defaults otherwise, one thread).
reference_rung() {  # PLAYOUTS -> its name on the ladder
  if [ "$1" -eq 200 ]; then echo reference60; else echo "reference60-$1"; fi
}
if [ "$reference" -gt 0 ]; then
  json_name=search$playouts-reference match "search$playouts" "model:$model,visits=$playouts,threads=1" \
    "$reference" --player "$(reference_rung "$playouts")@model:$reference_model,visits=$playouts,threads=1"
fi
if [ "$upper" -gt 0 ]; then
  upper_rungs=(--player "reference150@model:$reference150_model,visits=200,threads=1")
  for rung_playouts in 200 800 3200; do
    [ "$reference" -gt 0 ] && [ "$rung_playouts" -eq "$playouts" ] && continue  # played above
    upper_rungs+=(--player "$(reference_rung $rung_playouts)@model:$reference_model,visits=$rung_playouts,threads=1")
  done
  json_name=search$playouts-upper match "search$playouts" "model:$model,visits=$playouts,threads=1" \
    "$upper" "${upper_rungs[@]}"
fi
if [ "$level5" -gt 0 ]; then
  json_name=search$playouts-rhino5 match "search$playouts" "model:$model,visits=$playouts,threads=1" \
    "$level5" --player "rhino5@gtp:$rhino -l 5"
fi

echo "== ratings on the fixed ladder ($ladder)"
"$exe" elo --fixed "$ladder" "$out/games" --csv "$out/elo.csv" >/dev/null
/usr/bin/python3 scripts/strength_report.py "$out" --ladder "$ladder"
