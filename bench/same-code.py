#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Whether two builds of an object have the same code, function by function:
#   same-code.py OLD.o NEW.o
# objdump -dr of each, without addresses, relocation offsets into string and
# data sections (paths in __FILE__ move them) and GCC's clone suffixes.
# Instruction counts (bench/run.sh measures under -icount) of a function
# with the same code are the same, so a change that leaves every function
# of a measured path the same needs no new benchmark run.
import re,sys,subprocess
def norm(l):
    l=re.sub(r'^[0-9a-f]+: ','',l)
    l=re.sub(r'(\.rodata[\w.]*|\.data[\w.]*|\.bss[\w.]*|__jump_table|\.L\w+)\+0x[0-9a-f]+',r'\1',l)
    l=re.sub(r'\.(isra|constprop|part)\.\d+','',l)
    return l
def funcs(obj):
    out=subprocess.run(['objdump','-dr','--no-show-raw-insn',obj],capture_output=True,text=True).stdout
    f={};cur=None
    for l in out.splitlines():
        l=re.sub(r'^ *[0-9a-f]+:\s*','',l)
        l=re.sub(r'[0-9a-f]+ <([^>+]*)(\+0x[0-9a-f]+)?>',r'<\1>',l)
        m=re.match(r'^<(.*)>:$',l.strip())
        if m: cur=m.group(1); f[cur]=[]; continue
        if cur and l.strip(): f[cur].append(norm(l.strip()))
    return f
a=funcs(sys.argv[1]); b=funcs(sys.argv[2])
same=[k for k in a if k in b and a[k]==b[k]]
diff=[k for k in a if k in b and a[k]!=b[k]]
print(sys.argv[1].split('/')[-1],"same:",len(same),"differ:",diff,"only old:",[k for k in a if k not in b],"only new:",[k for k in b if k not in a])
