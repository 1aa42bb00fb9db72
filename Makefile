# SPDX-License-Identifier: GPL-2.0
# Developer shortcuts; each target is one script (see README.md).
.PHONY: demo check import export bench fuzz deb deb-boot
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
# Debian packages of the patched kernel (not part of check): DEB_CONFIG=FILE
# or DEB_CONFIG=tiny instead of Debian's cloud-amd64 config.
deb:
	bash scripts/make-deb.sh $(DEB_CONFIG)
deb-boot:
	bash scripts/deb-boot.sh $(DEB_DIR)
