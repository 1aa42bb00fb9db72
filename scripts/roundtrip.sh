#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Import the series into a scratch work tree, export it again and compare:
# the round trip must be byte-identical. The scratch tree holds only the files
# the series modifies: the patches' text depends on nothing else. With a cover
# letter (kernel/cover.txt) the tree is whole: the letter's base-commit is
# the pristine commit, which names the whole tree.
. "$(dirname "$0")/lib.sh"

scratch=$BUILD/roundtrip
rm -rf "$scratch"
mkdir -p "$scratch/patches"
sparse=1
[ -f "$NSCAPS_ROOT/kernel/cover.txt" ] && sparse=0
NSCAPS_WORKTREE=$scratch/linux NSCAPS_IMPORT_SPARSE=$sparse \
	bash "$NSCAPS_ROOT/scripts/worktree.sh" import
NSCAPS_WORKTREE=$scratch/linux NSCAPS_SERIES_OUT=$scratch \
	bash "$NSCAPS_ROOT/scripts/worktree.sh" export
diff -r "$NSCAPS_ROOT/kernel/series" "$scratch/series"
diff -r "$SERIES_DIR" "$scratch/patches"
rm -rf "$scratch"
echo "round trip identical: $(series_patches | wc -l) patches$([ $sparse = 1 ] || echo ' and the cover letter')"
