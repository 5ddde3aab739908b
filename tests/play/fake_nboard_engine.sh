#!/bin/sh
# A minimal NBoard engine for the tests: answers pings, chats like a real engine,
# and always plays f5 (legal only as black's first move). With MODE "chatty" it answers
# go with status lines for ever and never a move (the caller's timeout must end that).
mode=$1
while read -r cmd arg rest; do
  case "$cmd" in
    ping) printf 'pong %s\n' "$arg" ;;
    go) if [ "$mode" = chatty ]; then
          while :; do printf 'status thinking\n'; sleep 0.05; done
        fi
        printf 'status thinking\nnodestats 1000 0.01\n=== F5/1.50/0.01\nstatus waiting\n' ;;
    nboard) printf 'set myname Fake\n' ;;
  esac
done
