# SPDX-License-Identifier: GPL-2.0
# Developer shortcuts; each target is one script (see README.md).
.PHONY: demo check import export bench fuzz
demo:
	bash scripts/demo.sh
check:
	bash scripts/check.sh
import:
	bash scripts/worktree.sh import
export:
	bash scripts/worktree.sh export
fuzz:
	$(MAKE) -C fuzz fuzz
bench:
	bash bench/run.sh
