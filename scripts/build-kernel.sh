#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build the kernel of build/linux out of tree, with ccache.
#
# Usage: scripts/build-kernel.sh [FLAVOUR] [--config-only] [--headers] [--no-check]
#   FLAVOUR is a line of kernel/flavours (default: default): its fragments
#   are merged on allnoconfig and the kernel is built in build/obj/FLAVOUR
#   (OBJ=DIR elsewhere, as make bisect-check does).
#   --headers installs the uapi headers in OBJ/usr/include (for the
#   selftests and tools/) instead of building the kernel.
#   EXTRA_CONFIG="file ..." merges further fragments; KTARGETS="dir/x.o ..."
#   builds those kbuild targets instead of bzImage.
#   --no-check skips the check that every requested option is set (bisecting
#   patches older than the options a fragment names).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=default config_only=0 check=1 headers=0
for a in "$@"; do
	case $a in
	--config-only) config_only=1 ;;
	--headers) headers=1 ;;
	--no-check) check=0 ;;
	-h|--help) sed -n '3,13p' "$0"; exit 0 ;;
	-*) die "build-kernel.sh: unknown argument '$a' (try --help)" ;;
	*) is_flavour "$a" || die "build-kernel.sh: unknown argument '$a': not a flavour of kernel/flavours ($(flavour_names | tr '\n' ' '))"
	   flavour=$a ;;
	esac
done

[ -f "$TREE/Makefile" ] || die "no kernel tree in $TREE: run 'make prepare' first"
frags=()
for f in $(flavour_field "$flavour" 2); do frags+=("$TOP/kernel/$f"); done
for f in ${EXTRA_CONFIG:-}; do
	[ -f "$f" ] || die "EXTRA_CONFIG: $f does not exist"
	frags+=("$f")
done
OBJ=${OBJ:-$(flavour_objdir "$flavour")}
mkdir -p "$OBJ" "$LOGS"
command -v ccache >/dev/null || die "ccache is missing: run 'make deps'"

KMAKE=(make -C "$TREE" O="$OBJ" -j"$(jobs_count)" CC="ccache gcc" HOSTCC="ccache gcc"
       KBUILD_BUILD_USER=smpnice KBUILD_BUILD_HOST=qemu
       KBUILD_BUILD_TIMESTAMP="2000-01-01")

# Merge the fragments on top of allnoconfig; regenerate only if an input changed.
cfgsum=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.smpnice-config" 2>/dev/null)" != "$cfgsum" ] || \
   [ "$TREE/.git/HEAD" -nt "$OBJ/.config" ] || [ "$TREE/.git/index" -nt "$OBJ/.config" ]; then
	msg "configuring $flavour kernel from ${frags[*]#"$TOP"/}"
	(cd "$TREE" && run_logged "$LOGS/config-$flavour.log" \
		scripts/kconfig/merge_config.sh -n -O "$OBJ" "${frags[@]}") || \
		die "configuration failed (see $LOGS/config-$flavour.log)"
	# merge_config.sh calls plain "make"; refresh with our make line too.
	"${KMAKE[@]}" -s olddefconfig >>"$LOGS/config-$flavour.log" 2>&1
	echo "$cfgsum" >"$OBJ/.smpnice-config"
fi

if [ "$check" -eq 1 ]; then
	# Every requested option must have survived: a silently dropped option
	# (unmet dependency, typo) fails here, by name.
	missing=()
	# The last fragment that names an option decides it, as in merge_config.sh.
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$OBJ/.config" || \
				missing+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$OBJ/.config" || echo 'not present'))") ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			grep -q "^$opt=" "$OBJ/.config" && missing+=("$line (got: $(grep "^$opt=" "$OBJ/.config"))") ;;
		esac
	done < <(cat "${frags[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o); last[o] = $0; if (!(o in seen)) { seen[o] = 1; order[n++] = o } }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { o = $2; last[o] = $0; if (!(o in seen)) { seen[o] = 1; order[n++] = o } }
		END { for (i = 0; i < n; i++) print last[order[i]] }')
	if [ "${#missing[@]}" -gt 0 ]; then
		printf 'ERROR: requested option not set in %s:\n' "$OBJ/.config" >&2
		printf '  %s\n' "${missing[@]}" >&2
		rm -f "$OBJ/.smpnice-config"
		exit 1
	fi
fi
[ "$config_only" -eq 1 ] && { msg "config ready: $OBJ/.config"; exit 0; }
if [ "$headers" -eq 1 ]; then
	run_logged "$LOGS/headers-$flavour.log" "${KMAKE[@]}" -s headers || die "make headers failed"
	msg "uapi headers in ${OBJ#"$TOP"/}/usr/include"
	exit 0
fi

msg "building $flavour kernel in ${OBJ#"$TOP"/} ($(jobs_count) jobs, ccache)"
start=$SECONDS
# shellcheck disable=SC2086
run_logged "$LOGS/build-$flavour.log" "${KMAKE[@]}" ${KTARGETS:-bzImage} || die "kernel build failed"
if [ -n "${KTARGETS:-}" ]; then msg "built in $((SECONDS - start)) s: $KTARGETS"
else msg "built in $((SECONDS - start)) s: $OBJ/arch/x86/boot/bzImage"; fi
