#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Copy the DOC: sections of the source into Documentation/*.rst.
#
#   tools/doc-sync.sh [-c] [FILE.rst ...]     (default: Documentation/*.rst)
#
# Documentation/ is not built by Sphinx, so the kernel's directive
# ".. kernel-doc:: FILE" with ":doc: TITLE" cannot pull a DOC: section in.
# Instead, a .rst file holds the section's text, as scripts/kernel-doc
# prints it for that directive, between two comments:
#
#   .. doc-sync kmod/core/tm_tuple.c: Theory of operation
#      (indented lines go on with the comment: say what it is)
#
#   ...the DOC: section "Theory of operation" of kmod/core/tm_tuple.c...
#
#   .. end of doc-sync
#
# and this script rewrites that text from the source.  -c only checks: it
# prints what differs and fails when a file is out of date (make style).
# KERNELDOC is the kernel's scripts/kernel-doc; by default the one that
# make style extracts from Debian's linux-source-6.1.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kerneldoc=${KERNELDOC:-$top/build/checkpatch/scripts/kernel-doc}
check=0

usage() {
	echo "usage: $0 [-c] [FILE.rst ...]" >&2
	exit 2
}

while getopts c opt; do
	case $opt in
	c) check=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))

if [ ! -x "$kerneldoc" ]; then
	echo "doc-sync: no kernel-doc at $kerneldoc: run make style (it" \
		"extracts one from linux-source-6.1), or set KERNELDOC" >&2
	exit 1
fi

# The text of DOC: section $2 of source file $1, without leading or
# trailing blank lines.  The Sphinx version is fixed so that the output
# does not depend on whether sphinx-build is installed.
doc_section() {
	local out err

	err=$(mktemp)
	if ! out=$("$kerneldoc" -rst -sphinx-version 3.4.3 -function "$2" \
		"$top/$1" 2>"$err") || [ -s "$err" ] || [ -z "$out" ]; then
		echo "doc-sync: DOC: section \"$2\" of $1:" >&2
		cat "$err" >&2
		rm -f "$err"
		return 1
	fi
	rm -f "$err"
	printf '%s\n' "$out" | sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'
}

# File $1 with every section between markers made again from the source.
sync_file() {
	local line src title state=text

	while IFS= read -r line || [ -n "$line" ]; do
		case $state in
		text)
			printf '%s\n' "$line"
			if [[ $line =~ ^\.\.\ doc-sync\ ([^:]+):\ (.+)$ ]]; then
				src=${BASH_REMATCH[1]}
				title=${BASH_REMATCH[2]}
				state=marker
			fi
			;;
		marker)
			# The marker comment's indented lines, then the section.
			if [[ $line == "   "* ]]; then
				printf '%s\n' "$line"
				continue
			fi
			printf '\n'
			doc_section "$src" "$title" || return 1
			printf '\n'
			state=old
			;&
		old)
			if [ "$line" = ".. end of doc-sync" ]; then
				printf '%s\n' "$line"
				state=text
			fi
			;;
		esac
	done <"$1"
	if [ "$state" != text ]; then
		echo "doc-sync: $1: no \".. end of doc-sync\" after the" \
			"section of $src" >&2
		return 1
	fi
}

if [ $# -eq 0 ]; then
	set -- "$top"/Documentation/*.rst
fi

status=0
for rst in "$@"; do
	grep -q '^\.\. doc-sync ' "$rst" || continue
	new=$(mktemp)
	if ! sync_file "$rst" >"$new"; then
		rm -f "$new"
		status=1
		continue
	fi
	if cmp -s "$rst" "$new"; then
		rm -f "$new"
	elif [ "$check" = 1 ]; then
		echo "doc-sync: $rst differs from the DOC: comments it copies" \
			"(run tools/doc-sync.sh):" >&2
		diff -u "$rst" "$new" >&2 || true
		rm -f "$new"
		status=1
	else
		cat "$new" >"$rst"
		rm -f "$new"
		echo "doc-sync: updated $rst"
	fi
done
exit $status
