#!/usr/bin/env bash
# tee-capture.sh IN_FILE OUT_FILE CMD [ARGS...]
#
# Runs CMD ARGS with its stdin copied byte for byte to IN_FILE and its stdout
# copied byte for byte to OUT_FILE: an independent capture of a stdio MCP
# server's traffic, to compare with what a proxy records. CMD's stderr passes
# through untouched. Both files are truncated first.
#
#   stdin -> tee IN_FILE -> CMD -> tee OUT_FILE -> stdout
#
# The script starts the two tees and then execs CMD, so CMD keeps this
# process's pid, its signals go straight to CMD, and the exit status (or the
# killing signal) is CMD's own. GNU tee does not buffer, so each message reaches
# the other side as soon as it is written.
#
# EOF propagates both ways: when the client closes our stdin, the first tee
# ends and CMD sees EOF on its stdin; when CMD exits (or closes its stdout) the
# second tee ends and the client sees EOF on our stdout.
# When are the captures complete? OUT_FILE: once the client has read EOF on
# our stdout (tee writes each chunk to the client before the file, but exits,
# closing the client's pipe, only after the last file write). IN_FILE: once CMD
# has seen EOF on its stdin, or once the client has closed our stdin. If CMD
# dies while the client keeps our stdin open, the first tee lingers until the
# client's next write (which then fails with EPIPE, as with a direct pipe) or
# its stdin EOF.
set -u

if [ "$#" -lt 3 ]; then
  echo "usage: tee-capture.sh IN_FILE OUT_FILE CMD [ARGS...]" >&2
  exit 64
fi
in_file=$1
out_file=$2
shift 2

# Fail loudly here, since tee's own diagnostics are silenced below (when a
# reader goes away while SIGPIPE is ignored, tee would print "Broken pipe"
# noise into what must be CMD's stderr alone).
: >"$in_file" || exit 70
: >"$out_file" || exit 70

# The stdin side first, so that the stdout tee is not inherited by it: only CMD
# may hold the write end of the pipe the stdout tee reads, or EOF would not
# reach the client when CMD exits.
exec < <(exec tee -- "$in_file" 2>/dev/null)
exec > >(exec tee -- "$out_file" 2>/dev/null)
exec "$@"
