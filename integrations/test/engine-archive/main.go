// SPDX-License-Identifier: GPL-2.0
//
// engine-archive: the guest test of the engine patches under integrations/
// (issue 25). It drives the patched pkg/archive of moby 20.10
// (github.com/docker/docker/pkg/archive) and of containers/storage 1.43
// (github.com/containers/storage/pkg/archive), built from Debian's
// golang-github-docker-docker-dev and golang-github-containers-storage-dev
// sources by integrations/build.sh, the way dockerd's and Podman's overlay
// and naive (vfs) Diff do: TarWithOptions over a layer directory, and
// ChangesDirs then ExportChanges, with a container's ID maps.
//
// What it asserts, for each engine:
//   - a file with security.capability@uid=100000 (v2, or v3 with rootid
//     100000) archived with the maps of a container whose root is host uid
//     100000 carries SCHILY.xattr.security.capability as a 20-byte v2 value
//     with the same permitted, inheritable and effective bits;
//   - that key wins over a plain value on the same file (what the container
//     resolves), and a plain value alone is carried as before;
//   - another namespace's key, the wildcard, and a v3 value under the key
//     whose rootid is not the key, are never carried; nothing is carried
//     without maps, or with maps whose root is another uid;
//   - a setcap-only change (only the @uid=100000 name differs) is a change
//     for ChangesDirs, and ExportChanges carries it as v2;
//   - on the patched kernel, a real setcap from a user namespace whose root
//     is host uid 100000 (a child process) lands under
//     security.capability@uid=100000 and the archive carries it as v2
//     (fs.xattr_user_ns=1); with fs.xattr_user_ns=0 it is a plain v3 value,
//     carried as v2 by moby and as stock containers/storage does (v3).
//
// Output is TAP; exit status 1 if a check failed.
//
// Runs ONLY as root in the initial user namespace in a guest, on the patched
// kernel, with -dir (default $TMPDIR) on a filesystem with security xattrs
// (tmpfs or ext4, never 9p): it writes raw security.capability* names.
// -negative-only writes no xattr (files without any, archived with and
// without maps: nothing may be carried); that mode may run on any host.
package main

import (
	"archive/tar"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	storagearchive "github.com/containers/storage/pkg/archive"
	storageidtools "github.com/containers/storage/pkg/idtools"
	mobyarchive "github.com/docker/docker/pkg/archive"
	mobyidtools "github.com/docker/docker/pkg/idtools"
	"golang.org/x/sys/unix"
)

const (
	capName  = "security.capability"
	keyName  = capName + "@uid=100000"
	sysctl   = "/proc/sys/fs/xattr_user_ns"
	rootUID  = 100000
	paxCap   = "SCHILY.xattr." + capName
	childArg = "__setcap-in-userns"

	capKill           = 5
	capNetBindService = 10
	capNetRaw         = 13
	capBPF            = 39
)

// idMap is one line of a uid_map (and here the same gid_map).
type idMap struct{ container, host, size int }

var (
	remap     = []idMap{{0, rootUID, 65536}}
	otherRoot = []idMap{{0, 300000, 65536}, {65536, rootUID, 65536}}
)

// engine is one patched pkg/archive.
type engine struct {
	name string
	// tar archives dir as overlay Diff does (TarWithOptions).
	tar func(dir string, maps []idMap) (io.ReadCloser, error)
	// diff lists the changes of newDir against oldDir and archives them,
	// as the naive (vfs) Diff does (ChangesDirs, ExportChanges).
	diff func(newDir, oldDir string, maps []idMap) ([]string, io.ReadCloser, error)
}

func mobyMaps(maps []idMap) []mobyidtools.IDMap {
	var m []mobyidtools.IDMap
	for _, e := range maps {
		m = append(m, mobyidtools.IDMap{ContainerID: e.container, HostID: e.host, Size: e.size})
	}
	return m
}

func storageMaps(maps []idMap) []storageidtools.IDMap {
	var m []storageidtools.IDMap
	for _, e := range maps {
		m = append(m, storageidtools.IDMap{ContainerID: e.container, HostID: e.host, Size: e.size})
	}
	return m
}

var engines = []engine{
	{
		name: "moby 20.10",
		tar: func(dir string, maps []idMap) (io.ReadCloser, error) {
			m := mobyMaps(maps)
			return mobyarchive.TarWithOptions(dir, &mobyarchive.TarOptions{
				Compression: mobyarchive.Uncompressed, UIDMaps: m, GIDMaps: m,
			})
		},
		diff: func(newDir, oldDir string, maps []idMap) ([]string, io.ReadCloser, error) {
			m := mobyMaps(maps)
			changes, err := mobyarchive.ChangesDirs(newDir, oldDir)
			if err != nil {
				return nil, nil, err
			}
			var names []string
			for _, c := range changes {
				names = append(names, c.String())
			}
			rc, err := mobyarchive.ExportChanges(newDir, changes, m, m)
			return names, rc, err
		},
	},
	{
		name: "containers/storage 1.43",
		tar: func(dir string, maps []idMap) (io.ReadCloser, error) {
			m := storageMaps(maps)
			return storagearchive.TarWithOptions(dir, &storagearchive.TarOptions{
				Compression: storagearchive.Uncompressed, UIDMaps: m, GIDMaps: m,
			})
		},
		diff: func(newDir, oldDir string, maps []idMap) ([]string, io.ReadCloser, error) {
			m := storageMaps(maps)
			mappings := storageidtools.NewIDMappingsFromMaps(m, m)
			changes, err := storagearchive.ChangesDirs(newDir, mappings, oldDir, mappings)
			if err != nil {
				return nil, nil, err
			}
			var names []string
			for _, c := range changes {
				names = append(names, c.String())
			}
			rc, err := storagearchive.ExportChanges(newDir, changes, m, m)
			return names, rc, err
		},
	},
}

// capValue builds a file capability value: revision 2 (rootid < 0) or 3.
func capValue(effective bool, permitted, inheritable uint64, rootid int64) []byte {
	v := make([]byte, 24)
	magic := uint32(0x02000000)
	if rootid >= 0 {
		magic = 0x03000000
		binary.LittleEndian.PutUint32(v[20:], uint32(rootid))
	}
	if effective {
		magic |= 1
	}
	binary.LittleEndian.PutUint32(v, magic)
	binary.LittleEndian.PutUint32(v[4:], uint32(permitted))
	binary.LittleEndian.PutUint32(v[8:], uint32(inheritable))
	binary.LittleEndian.PutUint32(v[12:], uint32(permitted>>32))
	binary.LittleEndian.PutUint32(v[16:], uint32(inheritable>>32))
	if rootid < 0 {
		return v[:20]
	}
	return v
}

// describe decodes a value for diagnostics.
func describe(v string) string {
	b := []byte(v)
	if len(b) < 20 {
		return fmt.Sprintf("%d bytes %x", len(b), b)
	}
	magic := binary.LittleEndian.Uint32(b)
	s := fmt.Sprintf("%d bytes rev %d eff %v perm %#x inh %#x", len(b), magic>>24, magic&1 != 0,
		uint64(binary.LittleEndian.Uint32(b[12:]))<<32|uint64(binary.LittleEndian.Uint32(b[4:])),
		uint64(binary.LittleEndian.Uint32(b[16:]))<<32|uint64(binary.LittleEndian.Uint32(b[8:])))
	if len(b) == 24 {
		s += fmt.Sprintf(" rootid %d", binary.LittleEndian.Uint32(b[20:]))
	}
	return s
}

type tap struct{ n, failed int }

func (t *tap) check(ok bool, desc string) bool {
	t.n++
	if ok {
		fmt.Printf("ok %d - %s\n", t.n, desc)
	} else {
		t.failed++
		fmt.Printf("not ok %d - %s\n", t.n, desc)
	}
	return ok
}

func (t *tap) skip(desc, why string) {
	t.n++
	fmt.Printf("ok %d - %s # SKIP %s\n", t.n, desc, why)
}

func diag(format string, args ...interface{}) {
	for _, l := range strings.Split(fmt.Sprintf(format, args...), "\n") {
		fmt.Printf("#   %s\n", l)
	}
}

// sameCaps checks got against want (tar name -> value) and explains a miss.
func (t *tap) sameCaps(desc string, got, want map[string]string) {
	if t.check(fmt.Sprint(got) == fmt.Sprint(want), desc) {
		return
	}
	names := map[string]bool{}
	for k := range got {
		names[k] = true
	}
	for k := range want {
		names[k] = true
	}
	var sorted []string
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		g, gok := got[k]
		w, wok := want[k]
		if g == w && gok == wok {
			continue
		}
		gs, ws := "(none)", "(none)"
		if gok {
			gs = describe(g)
		}
		if wok {
			ws = describe(w)
		}
		diag("%s: got %s, want %s", k, gs, ws)
	}
}

// readCaps returns the security.capability records of a tar stream by entry
// name, and fails on any other security.capability* record.
func readCaps(rc io.ReadCloser) (map[string]string, error) {
	defer rc.Close()
	caps := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return caps, nil
		}
		if err != nil {
			return nil, err
		}
		for k, v := range hdr.PAXRecords {
			switch {
			case k == paxCap:
				caps[hdr.Name] = v
			case strings.HasPrefix(k, paxCap):
				return nil, fmt.Errorf("%s: record %s must never be carried", hdr.Name, k)
			}
		}
	}
}

// makeFiles creates files named by the keys of files, owned by rootUID,
// then sets their xattrs (after the chown, which drops capabilities).
func makeFiles(dir string, files map[string]map[string][]byte) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if err := os.Lchown(dir, rootUID, rootUID); err != nil {
		return err
	}
	for name, xattrs := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o755); err != nil {
			return err
		}
		if err := os.Chtimes(p, time.Unix(1, 0), time.Unix(1, 0)); err != nil {
			return err
		}
		if err := os.Lchown(p, rootUID, rootUID); err != nil {
			return err
		}
		for k, v := range xattrs {
			if err := unix.Lsetxattr(p, k, v, 0); err != nil {
				return fmt.Errorf("setxattr %s %s: %w", p, k, err)
			}
		}
	}
	return nil
}

func getxattr(path, name string) ([]byte, error) {
	buf := make([]byte, 256)
	n, err := unix.Lgetxattr(path, name, buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// setcapInUserNS runs this program in a new user namespace whose root is
// host uid rootUID (as a remapped container's root) and has it write value
// as security.capability on path: what setcap does in the container.
func setcapInUserNS(path string, value []byte) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, childArg, path, hex.EncodeToString(value))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: rootUID, Size: 65536}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: rootUID, Size: 65536}},
		// Host root is unmapped there: become the namespace's root
		// (host 100000), which keeps its capabilities across exec.
		Credential: &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true},
	}
	return cmd.Run()
}

func child(path, value string) {
	v, err := hex.DecodeString(value)
	if err == nil {
		err = unix.Lsetxattr(path, capName, v, 0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "in user namespace: setxattr %s %s: %v\n", path, capName, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == childArg {
		child(os.Args[2], os.Args[3])
	}
	base := flag.String("dir", os.Getenv("TMPDIR"), "directory on a filesystem with security xattrs (tmpfs in the guest)")
	negativeOnly := flag.Bool("negative-only", false, "write no xattr: only check that files without capabilities carry none")
	noUserNS := flag.Bool("no-userns", false, "skip the setcap from a user namespace")
	keep := flag.Bool("keep", false, "keep the test directory")
	flag.Parse()
	if *base == "" {
		*base = os.TempDir()
	}
	t := &tap{}
	if err := run(t, *base, *negativeOnly, *noUserNS, *keep); err != nil {
		t.check(false, "setup")
		diag("%v", err)
	}
	fmt.Printf("1..%d\n# %d passed, %d failed\n", t.n, t.n-t.failed, t.failed)
	if t.failed > 0 {
		os.Exit(1)
	}
}

func run(t *tap, base string, negativeOnly, noUserNS, keep bool) error {
	if os.Geteuid() != 0 {
		return errors.New("must run as root (it chowns files to uid 100000)")
	}
	var uname unix.Utsname
	_ = unix.Uname(&uname)
	mode := "absent (stock semantics)"
	if b, err := os.ReadFile(sysctl); err == nil {
		mode = strings.TrimSpace(string(b))
	}
	fmt.Printf("# kernel %s, fs.xattr_user_ns %s\n", unix.ByteSliceToString(uname.Release[:]), mode)

	dir, err := os.MkdirTemp(base, "engine-archive-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	// The user namespace's root (host uid 100000) walks into it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}

	if negativeOnly {
		return runNegative(t, dir)
	}

	full := func(rootid int64) []byte {
		return capValue(true, 1<<capNetRaw|1<<capNetBindService|1<<capBPF, 1<<capKill, rootid)
	}
	noEff := capValue(false, 1<<capNetRaw, 1<<capNetBindService, rootUID)
	kill := capValue(true, 1<<capKill, 0, -1)
	v2 := string(full(-1))
	noEffV2 := string(capValue(false, 1<<capNetRaw, 1<<capNetBindService, -1))

	layer := filepath.Join(dir, "layer")
	if err := os.Mkdir(layer, 0o755); err != nil {
		return err
	}
	if err := makeFiles(layer, map[string]map[string][]byte{
		"v2":              {keyName: full(-1)},
		"v3":              {keyName: full(rootUID)},
		"v3-noeffective":  {keyName: noEff},
		"v3-other-rootid": {keyName: full(200000)},
		"other-key":       {capName + "@uid=200000": full(-1)},
		"wildcard":        {capName + "@uid": full(-1)},
		"plain":           {capName: kill},
		"plain-and-key":   {capName: kill, keyName: full(rootUID)},
		"none":            nil,
	}); err != nil {
		return err
	}
	if got, err := getxattr(filepath.Join(layer, "v3"), keyName); !t.check(err == nil && string(got) == string(full(rootUID)),
		"host root reads back the raw "+keyName+" it wrote, byte for byte") {
		diag("got %x, %v", got, err)
	}

	for _, e := range engines {
		for _, tc := range []struct {
			what string
			maps []idMap
			want map[string]string
		}{
			{"maps 0->100000: the container's key as v2, own key over plain, nothing else",
				remap, map[string]string{"v2": v2, "v3": v2, "v3-noeffective": noEffV2, "plain": string(kill), "plain-and-key": v2}},
			{"no maps: plain values only",
				nil, map[string]string{"plain": string(kill), "plain-and-key": string(kill)}},
			{"maps 0->300000 (another root): plain values only",
				otherRoot, map[string]string{"plain": string(kill), "plain-and-key": string(kill)}},
		} {
			rc, err := e.tar(layer, tc.maps)
			var got map[string]string
			if err == nil {
				got, err = readCaps(rc)
			}
			if err != nil {
				t.check(false, e.name+" TarWithOptions, "+tc.what)
				diag("%v", err)
				continue
			}
			t.sameCaps(e.name+" TarWithOptions, "+tc.what, got, tc.want)
		}
	}

	// A setcap-only change: two trees alike but for the key on x.
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, d := range []string{oldDir, newDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := makeFiles(oldDir, map[string]map[string][]byte{"x": nil, "y": nil}); err != nil {
		return err
	}
	if err := makeFiles(newDir, map[string]map[string][]byte{"x": {keyName: full(rootUID)}, "y": nil}); err != nil {
		return err
	}
	for _, e := range engines {
		changes, rc, err := e.diff(newDir, oldDir, remap)
		var got map[string]string
		if err == nil {
			got, err = readCaps(rc)
		}
		if err != nil {
			t.check(false, e.name+" ChangesDirs+ExportChanges")
			diag("%v", err)
			continue
		}
		if !t.check(fmt.Sprint(changes) == "[C /x]", e.name+" ChangesDirs: a setcap-only change (only "+keyName+" differs) is a change") {
			diag("changes %v", changes)
		}
		t.sameCaps(e.name+" ExportChanges with maps 0->100000 carries it as v2", got, map[string]string{"x": v2})
	}

	if noUserNS {
		t.skip("setcap from a user namespace whose root is 100000", "-no-userns")
		return nil
	}
	runUserNS(t, dir, mode, full)
	return nil
}

// runUserNS has a real user namespace (root = host 100000) set the
// capability, then archives the layer as the engines do.
func runUserNS(t *tap, dir, mode string, full func(int64) []byte) {
	layer := filepath.Join(dir, "userns")
	if err := os.Mkdir(layer, 0o755); err != nil {
		t.check(false, "userns layer")
		diag("%v", err)
		return
	}
	if err := makeFiles(layer, map[string]map[string][]byte{"x": nil}); err != nil {
		t.check(false, "userns layer")
		diag("%v", err)
		return
	}
	x := filepath.Join(layer, "x")
	// The container's file: its root needs CAP_SETFCAP over it.
	if err := os.Lchown(x, rootUID, rootUID); err != nil {
		t.check(false, "userns layer")
		diag("%v", err)
		return
	}
	if err := setcapInUserNS(x, full(-1)); !t.check(err == nil, "setcap from a user namespace whose root is host uid 100000") {
		diag("%v", err)
		return
	}
	plain, plainErr := getxattr(x, capName)
	key, keyErr := getxattr(x, keyName)
	v2 := string(full(-1))
	var storageWant string
	switch mode {
	case "1":
		t.check(errors.Is(plainErr, unix.ENODATA) && keyErr == nil && string(key) == string(full(rootUID)),
			"fs.xattr_user_ns=1: it lands under "+keyName+" (v3, rootid 100000), no plain value")
		storageWant = v2
	default:
		t.check(errors.Is(keyErr, unix.ENODATA) && plainErr == nil && string(plain) == string(full(rootUID)),
			"fs.xattr_user_ns "+mode+": it is a plain v3 value with rootid 100000 (stock semantics)")
		// Stock containers/storage carries a plain value as it reads it.
		storageWant = string(full(rootUID))
	}
	diag("plain: %x (%v); %s: %x (%v)", plain, plainErr, keyName, key, keyErr)
	for _, e := range engines {
		want := v2
		if strings.HasPrefix(e.name, "containers/storage") {
			want = storageWant
		}
		for _, tc := range []struct {
			what string
			maps []idMap
			want map[string]string
		}{
			{"maps 0->100000", remap, map[string]string{"x": want}},
			{"maps 0->300000", otherRoot, map[string]string{}},
		} {
			if mode != "1" && tc.maps[0].host != rootUID {
				// Stock semantics: the plain value is carried whatever
				// the maps (what stock engines do).
				tc.want = map[string]string{"x": want}
			}
			rc, err := e.tar(layer, tc.maps)
			var got map[string]string
			if err == nil {
				got, err = readCaps(rc)
			}
			desc := fmt.Sprintf("%s TarWithOptions of the namespace's setcap, %s", e.name, tc.what)
			if err != nil {
				t.check(false, desc)
				diag("%v", err)
				continue
			}
			t.sameCaps(desc, got, tc.want)
		}
	}
}

// runNegative writes no xattr: files without capabilities, archived with and
// without maps, carry none, and two alike trees have no change.
func runNegative(t *tap, dir string) error {
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, d := range []string{oldDir, newDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
		if err := makeFiles(d, map[string]map[string][]byte{"x": nil, "y": nil}); err != nil {
			return err
		}
	}
	for _, e := range engines {
		for _, maps := range [][]idMap{nil, remap, otherRoot} {
			rc, err := e.tar(newDir, maps)
			var got map[string]string
			if err == nil {
				got, err = readCaps(rc)
			}
			desc := fmt.Sprintf("%s TarWithOptions, maps %v, no capability on disk: none carried", e.name, maps)
			if err != nil {
				t.check(false, desc)
				diag("%v", err)
				continue
			}
			t.sameCaps(desc, got, map[string]string{})
		}
		changes, rc, err := e.diff(newDir, oldDir, remap)
		if err == nil {
			_, err = readCaps(rc)
		}
		if err != nil {
			t.check(false, e.name+" ChangesDirs of alike trees")
			diag("%v", err)
			continue
		}
		if !t.check(len(changes) == 0, e.name+" ChangesDirs of alike trees: no change") {
			diag("changes %v", changes)
		}
	}
	return nil
}
