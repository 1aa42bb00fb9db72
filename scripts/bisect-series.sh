#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability of the series: build every patch in turn, in each
# configuration of the test command's matrix, and run checkpatch --strict and
# kernel-doc on it. Prints a PASS/FAIL line per patch and check, a table
# (patch by check) and "N passed, N failed, N skipped". Not part of the test
# command: each patch costs an incremental build per configuration.
#   bisect-series.sh [FIRST [LAST]]   patch numbers, 1-based (default: all)
# Configurations (kernel-build.sh variants, compile-only here):
#   builtin     tinyconfig + base test kunit nscaps: everything built in
#   modules     overlayfs and FUSE as modules, JUMP_LABEL (modpost checks
#               the exports)
#   nofeature   the LSM kernel's config with CONFIG_XATTR_USER_NS=n
#   nosecurity  CONFIG_SECURITY=n, modules, JUMP_LABEL
# Environment: NSCAPS_BISECT_CONFIGS (default "builtin modules nofeature
# nosecurity"). Work tree and objects: $BUILD/bisect; report:
# $BUILD/bisect/report.md.
. "$(dirname "$0")/lib.sh"

configs=${NSCAPS_BISECT_CONFIGS:-builtin modules nofeature nosecurity}
mapfile -t patches < <(series_patches)
total=${#patches[@]}
first=${1:-1} last=${2:-$total}
[[ $first =~ ^[0-9]+$ && $last =~ ^[0-9]+$ ]] && [ "$first" -ge 1 ] &&
	[ "$last" -le "$total" ] && [ "$first" -le "$last" ] ||
	die "usage: $0 [FIRST [LAST]] with 1 <= FIRST <= LAST <= $total"
for c in $configs; do
	case $c in builtin|modules|nofeature|nosecurity) ;; *) die "unknown configuration $c" ;; esac
done

work=$BUILD/bisect
tree=$work/linux
results=$work/results
report=$work/report.md
t0=$(date +%s)
mkdir -p "$work"
: >"$results"

# The series as commits on the pristine tree (the work tree of
# worktree.sh), so that each step changes only the files its patch changes
# and the builds stay incremental.
NSCAPS_WORKTREE=$tree bash "$NSCAPS_ROOT/scripts/worktree.sh" import
branch=$(git -C "$tree" symbolic-ref --short HEAD)
mapfile -t commits < <(git -C "$tree" rev-list --reverse nscaps-base..HEAD)
[ "${#commits[@]}" = "$total" ] || die "work tree has ${#commits[@]} commits, series $total"

variant_of() { case $1 in builtin) echo test ;; *) echo "$1" ;; esac; }

# kernel-doc warnings of FILE at REV, line numbers dropped so that a warning
# that moved is the same warning.
kdoc() {
	git -C "$tree" show "$2:$1" 2>/dev/null >"$work/kdoc.src" || return 0
	(cd "$tree" && perl scripts/kernel-doc -none -Wall "$work/kdoc.src" 2>&1) |
		sed -e "s|$work/kdoc.src:[0-9]*:||" | sort -u
}

result() {
	echo "$1 $2:$3" | tee -a "$results"
}

for ((i = first; i <= last; i++)); do
	p=${patches[i - 1]} c=${commits[i - 1]}
	n=$(printf '%04d' "$i")
	git -C "$tree" checkout -q "$c"
	log "[$i/$total] $p"
	for cfg in $configs; do
		ts=$(date +%s)
		if NSCAPS_BUILD=$work NSCAPS_KCONFIG_PARTIAL=1 \
			bash "$NSCAPS_ROOT/scripts/kernel-build.sh" patched "$(variant_of "$cfg")" \
			--src "$tree" >"$work/build-$cfg.out" 2>&1; then
			result PASS "$n" "$cfg ($(($(date +%s) - ts)) s)"
		else
			sed 's/^/    /' "$work/build-$cfg.out" | tail -20 >&2
			result FAIL "$n" "$cfg"
		fi
	done
	if out=$(bash "$NSCAPS_ROOT/scripts/lint-series.sh" "$p" 2>&1) &&
	   ! grep -q '^FAIL' <<<"$out"; then
		result PASS "$n" checkpatch
	else
		echo "$out" | sed 's/^/    /' >&2
		result FAIL "$n" checkpatch
	fi
	# kernel-doc: no warning that the file did not have before the patch.
	new=
	while IFS= read -r f; do
		case $f in *.c|*.h) ;; *) continue ;; esac
		added=$(comm -13 <(kdoc "$f" "$c~1") <(kdoc "$f" "$c"))
		[ -z "$added" ] || new="$new$f: $added"$'\n'
	done < <(git -C "$tree" diff-tree --no-commit-id --name-only -r "$c")
	if [ -z "$new" ]; then
		result PASS "$n" kernel-doc
	else
		printf '%s' "$new" | sed 's/^/    /' >&2
		result FAIL "$n" kernel-doc
	fi
done
git -C "$tree" checkout -q "$branch"

# The table: one row per patch, one column per check.
checks="$configs checkpatch kernel-doc"
{
	printf '| patch |'; for k in $checks; do printf ' %s |' "$k"; done; echo
	printf '|---|'; for k in $checks; do printf -- '---|'; done; echo
	for ((i = first; i <= last; i++)); do
		n=$(printf '%04d' "$i")
		printf '| %s |' "${patches[i - 1]%.patch}"
		for k in $checks; do
			r=$(grep -E "^(PASS|FAIL) $n:$k( |$)" "$results" | head -1 | cut -d' ' -f1)
			printf ' %s |' "${r:-?}"
		done
		echo
	done
	echo
	echo "Patches $first to $last of $total, in $(($(date +%s) - t0)) s."
} >"$report"
echo
cat "$report"
summarize "$results" "$t0" "bisect-series: patches $first to $last"
