# SPDX-License-Identifier: GPL-2.0
# Shared shell functions of the smpnice pipeline. Source it; do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}
LOGS=$BUILD/logs
PATCHES=${PATCHES:-$TOP/patches}
# Keep ccache outside build/ so that a fresh clone (CI) reuses earlier objects.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/smpnice-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# shellcheck source=../kernel/VERSION
. "$TOP/kernel/VERSION"

msg()  { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Run a long command with its output in a log; show a heartbeat meanwhile and
# the log's tail on failure.
run_logged() {
	local log=$1; shift
	mkdir -p "$(dirname "$log")"
	local start=$SECONDS
	"$@" >"$log" 2>&1 &
	local pid=$! rc=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 15
		kill -0 "$pid" 2>/dev/null && \
			printf '    ... %ds, %s lines of log (%s)\n' $((SECONDS - start)) \
				"$(wc -l <"$log")" "${log#"$TOP"/}" >&2
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		printf 'ERROR: "%s" failed (exit %d); full log: %s\n' "$*" "$rc" "$log" >&2
	fi
	return "$rc"
}

# Names of the patches listed in patches/series, comments and blanks skipped.
series_patches() {
	[ -f "$PATCHES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

# The subject of a patch file (the Subject: header may be folded).
patch_subject() {
	awk '/^Subject: /{s=$0; f=1; next} f && /^ /{s=s $0; next} f{print s; exit}' "$1" |
		sed 's/^Subject: \[PATCH[^]]*\] //'
}

# A digest of the series as it is in patches/: what the tree was built from.
series_digest() {
	local p
	{
		series_patches
		for p in $(series_patches); do cat "$PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

jobs_count() { nproc; }

# The flavour table (kernel/flavours): "NAME | FRAGMENTS | MEM | PURPOSE".
FLAVOURS=$TOP/kernel/flavours
flavour_field() { # NAME FIELD(1-4)
	awk -F'|' -v n="$1" -v f="$2" '
		/^[[:space:]]*(#|$)/ { next }
		{ k = $1; gsub(/[[:space:]]/, "", k) }
		k == n { v = $f; gsub(/^[[:space:]]+|[[:space:]]+$/, "", v); print v; found = 1; exit }
		END { exit !found }' "$FLAVOURS"
}
flavour_names() { awk -F'|' '!/^[[:space:]]*(#|$)/ { gsub(/[[:space:]]/, "", $1); print $1 }' "$FLAVOURS"; }
is_flavour() { flavour_field "$1" 1 >/dev/null; }
# "NAME" or die naming the flavours there are.
check_flavour() {
	is_flavour "$1" || die "unknown flavour '$1' (kernel/flavours has: $(flavour_names | tr '\n' ' '))"
}
flavour_objdir() { echo "$BUILD/obj/$1"; }
kernel_image() { echo "$BUILD/obj/$1/arch/x86/boot/bzImage"; }

# need OPTION "$@": die unless OPTION has a value (option parsers).
need_value() { [ $# -ge 2 ] || die "$(basename "$0"): $1 needs a value (try --help)"; }
# posint OPTION VALUE: die unless VALUE is a whole number > 0.
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$(basename "$0"): $1 wants a positive number, got '$2'"; }

# The words the series may not use: kernel/series-words (subject and text
# rules, and the paths whose added lines count as text).
SERIES_WORDS=${SERIES_WORDS:-$TOP/kernel/series-words}
# series_word_rules WHERE: that kind's rules of kernel/series-words, one a
# line: "i" or "c", a tab, the regular expression ("path": the expressions).
series_word_rules() {
	awk -F'\t' -v w="$1" '$1 == w && NF >= 3 { print $2 "\t" $3 }' "$SERIES_WORDS"
}
# _words_grep WHERE DIR KIND...: DIR/KIND.txt holds texts, DIR/KIND.loc
# their locations (line N locates line N). Print "LOC<TAB>WHERE RULE<TAB>TEXT"
# for every text a WHERE rule matches; a KIND "pair" (two lines joined,
# located at the first) only if neither of its lines matches that rule alone
# (a phrase broken across two lines).
_words_grep() {
	local where=$1 dir=$2 kind cs re flag n
	shift 2
	for kind in "$@"; do
		: >"$dir/$kind.hits"
		[ -s "$dir/$kind.txt" ] || continue
		while IFS=$'\t' read -r cs re; do
			flag=; [ "$cs" = c ] || flag=-i
			grep -n -E $flag -e "$re" "$dir/$kind.txt" | cut -d: -f1 | while read -r n; do
				printf '%s\t%s %s\t%s\n' "$(sed -n "${n}p" "$dir/$kind.loc")" "$where" "$re" "$(sed -n "${n}p" "$dir/$kind.txt")"
			done
		done < <(series_word_rules "$where") >"$dir/$kind.hits"
		if [ "$kind" = pair ]; then
			# A pair at FILE:N matches alone if the same rule matched FILE:N or FILE:N+1.
			awk -F'\t' 'FILENAME == ARGV[1] { seen[$1 SUBSEP $2] = 1; next }
				{ n = split($1, a, ":"); nxt = a[1] ":" (a[n] + 1)
				  if (!(($1 SUBSEP $2) in seen) && !((nxt SUBSEP $2) in seen)) print }' \
				"$dir/text.hits" "$dir/pair.hits"
		else
			cat "$dir/$kind.hits"
		fi
	done
}
# LOC<TAB>WHERE RULE<TAB>TEXT lines as "LOC: TEXT  (WHERE rule: RULE)".
_words_show() {
	awk -F'\t' '{ t = $0; sub(/^[^\t]*\t[^\t]*\t[ \t]*/, "", t); w = $2; r = $2; sub(/ .*/, "", w); sub(/^[^ ]* /, "", r)
		print $1 ": " t "  (" w " rule: " r ")" }'
}
# series_word_offenders PATCH...: print "PATCH:LINE: TEXT  (WHERE rule: RE)"
# for every line of these patch files that kernel/series-words forbids: the
# subject, the changelog (up to the first "---" line) and the added lines
# of the diffs of the "path" files; a phrase broken over two lines counts.
# Status 1 if there is one.
series_word_offenders() {
	local f tmp paths out
	tmp=$(mktemp -d)
	paths=$(series_word_rules path | cut -f2 | paste -sd'|')
	for f in "$@"; do
		awk -v paths="${paths:-^$}" -v name="$(basename "$f")" -v tmp="$tmp" '
			function put(kind, text, line) {
				print text >>(tmp "/" kind ".txt"); print name ":" line >>(tmp "/" kind ".loc")
			}
			# A text line; with the one before it (same block, no comment
			# leader) as a pair, for phrases broken over two lines.
			function emit(text, line, t) {
				put("text", text, line)
				t = text; sub(/^[ \t]*(\/\*+|\*+\/?|\/\/)?[ \t]*/, "", t)
				if (prevline == line - 1 && prevblock == block) put("pair", prev " " t, prevline)
				prev = text; sub(/[ \t]*$/, "", prev); prevline = line; prevblock = block
			}
			BEGIN { state = "head"; block = 0 }
			state == "head" && /^Subject: / { subj = $0; sline = FNR; folding = 1; next }
			state == "head" && folding && /^[ \t]/ { subj = subj $0; next }
			state == "head" { folding = 0 }
			state == "head" && /^$/ {
				sub(/^Subject: (\[[^]]*\] )?/, "", subj); gsub(/\t/, " ", subj)
				put("subject", subj, sline); put("text", subj, sline)
				state = "log"; next
			}
			state == "log" && /^---$/ { state = "diff"; next }
			state == "log" { emit($0, FNR); next }
			/^diff --git / { hunk = 0; p = $NF; sub(/^b\//, "", p); want = (p ~ paths); next }
			/^@@ / { hunk = 1; block++; next }
			hunk && want && /^\+/ { emit(substr($0, 2), FNR); next }
			hunk { block++ }
		' "$f"
	done
	out=$({ _words_grep fixup "$tmp" subject; _words_grep subject "$tmp" subject
		_words_grep text "$tmp" text pair; } | sort -s -t: -k1,1 -k2,2n | uniq)
	rm -rf "$tmp"
	[ -z "$out" ] && return 0
	_words_show <<<"$out"
	return 1
}
# series_subject_offenders: standard input is "ID SUBJECT" lines (git log
# --format="%h %s"); print "ID: SUBJECT  (WHERE rule: RE)" for each subject that
# kernel/series-words forbids. Status 1 if there is one.
series_subject_offenders() {
	local tmp out id s
	tmp=$(mktemp -d)
	: >"$tmp/subject.txt"; : >"$tmp/subject.loc"
	while read -r id s; do
		printf '%s\n' "$s" >>"$tmp/subject.txt"; printf '%s\n' "$id" >>"$tmp/subject.loc"
	done
	out=$(_words_grep fixup "$tmp" subject; _words_grep subject "$tmp" subject)
	rm -rf "$tmp"
	[ -z "$out" ] && return 0
	_words_show <<<"$out"
	return 1
}

# The cover letter, patches/cover-letter.txt: prose written by hand, and
# between these two marker lines the series' diffstat, which make export
# refreshes. Neither git am patches/*.patch nor quilt (patches/series)
# sees it.
COVER=${COVER:-$PATCHES/cover-letter.txt}
COVER_BEGIN='<!-- diffstat -->'
COVER_END='<!-- /diffstat -->'
# series_diffstat GITDIR: the diffstat of smpnice-base..HEAD, as the cover
# letter shows it.
series_diffstat() { git -C "$1" diff --stat=72 smpnice-base HEAD; }
# cover_diffstat FILE: the lines between the markers; status 1 without
# both markers, in order.
cover_diffstat() {
	awk -v b="$COVER_BEGIN" -v e="$COVER_END" '
		$0 == b && !in_ && !done { in_ = 1; next }
		$0 == e && in_ { in_ = 0; done = 1; next }
		in_ { print }
		END { exit !done }' "$1"
}
# cover_with_diffstat FILE DIFFSTAT: FILE with DIFFSTAT between its markers,
# on standard output; every other line as it is.
cover_with_diffstat() {
	DIFFSTAT=$2 awk -v b="$COVER_BEGIN" -v e="$COVER_END" '
		$0 == b && !in_ && !done { print; print ENVIRON["DIFFSTAT"]; in_ = 1; next }
		$0 == e && in_ { in_ = 0; done = 1; print; next }
		!in_ { print }
		END { exit !done }' "$1"
}
