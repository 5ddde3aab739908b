#!/bin/sh
# A broken GTP engine for the tests: answers every command with success, except
# genmove, which it answers as MODE says (garbage, illegal, hang, die, error, chatty:
# blank lines for ever, which must not keep the referee waiting past its timeout).
mode=$1
while read -r line; do
  case "$mode:$line" in
    garbage:genmove*) printf 'hello there\n\n' ;;
    illegal:genmove*) printf '= a1\n\n' ;;
    error:genmove*) printf '? something went wrong\n\n' ;;
    hang:genmove*) sleep 1000 ;;
    die:genmove*) exit 3 ;;
    chatty:genmove*) while :; do printf '\n'; sleep 0.05; done ;;
    *:quit) printf '=\n\n'; exit 0 ;;
    *) printf '=\n\n' ;;
  esac
done
