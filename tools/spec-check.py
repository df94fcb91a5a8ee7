#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""spec-check: the YAML spec is the single source of the netlink ABI.

Documentation/netlink/specs/tuplemerge.yaml describes the "tuplemerge"
generic netlink family.  The same ABI is written by hand in three more
places, and this script checks each of them against the spec:

  1. the spec itself, validated with the kernel's own JSON schema of the
     protocol it declares (Documentation/netlink/<protocol>.yaml of Linux
     6.12, --ksrc or --schema), and loadable by ynl (SPDX first line);
  2. include/uapi/linux/tuplemerge.h: every enum (attribute sets,
     commands, enum and flags definitions) and #define (consts, family
     name and version, multicast groups), names and values, both ways;
  3. the kernel (kmod/, but kmod/core): every nla_policy array and the
     genl_ops table, wherever they are: each policy entry's NLA type and
     bounds against the attribute's spec type and checks, each command's
     policy against the attributes of its do and dump requests, its
     handlers against do/dump, its flags, the multicast groups, the family;
  4. tmctl (tools/tmctl/nl.c): tm_attr_types[], the libmnl types it
     validates replies with, and tm_attr_ipv6(), the 16-byte addresses.

Each mismatch is one line, "FILE:LINE: what differs"; the last line is a
summary.  Exit 0 when everything agrees, 1 on mismatches, 2 when an input
is missing or cannot be parsed.

Mapping rules, spec name -> C name (those of the kernel's
tools/net/ynl/ynl-gen-c.py, with one difference: the C prefix):

  C prefix   The spec's operations name-prefix without its trailing
             "cmd-" ("tm-cmd-" -> "tm-"); without one, the family name
             and "-" (ynl's default).  Written P below.
  c_upper    upper case, "-" -> "_"; c_lower: lower case, "-" -> "_".
  const      #define c_upper(P + name) value; a definition with "header"
             or a scope other than "uapi" is not in the uapi header.
  enum/flags enum c_lower(enum-name), or c_lower(P + name) without
             enum-name (enum-name: null, an enum without a tag); entries
             c_upper(name-prefix + entry), name-prefix defaulting to
             P + name + "-"; values from value-start (0) up, or given;
             flags are 1 << that.  render-max adds __PFX_MAX and
             PFX_MAX = __PFX_MAX - 1 (flags: PFX_MASK).
  attr set   enum c_lower(enum-name) (anonymous without), entries
             c_upper(name-prefix + attr), values from 1 up or given;
             then attr-cnt-name (__PFX_MAX) and attr-max-name (PFX_MAX).
  commands   enum c_lower(operations enum-name), entries
             c_upper(name-prefix + op), values from 1 up or given; then
             cmd-cnt-name (__PFX_MAX) and cmd-max-name (PFX_MAX).
  UNSPEC     an attribute or command enum whose spec values start above 0
             may hold PFX_UNSPEC = 0 (the uapi's placeholder).
  family     #define c_upper(c-family-name) "name", default
             NAME_FAMILY_NAME; c_upper(c-version-name) version (1),
             default NAME_FAMILY_VERSION.
  mcgrp      #define c_upper(c-define-name) "name", default
             c_upper(P + "mcgrp-" + name); kernel flags uns-admin-perm ->
             GENL_MCAST_CAP_NET_ADMIN, admin-perm -> GENL_MCAST_CAP_SYS_ADMIN.
  op flags   c_upper("genl-" + flag): uns-admin-perm -> GENL_UNS_ADMIN_PERM;
             dont-validate x -> GENL_DONT_VALIDATE_<X> in .validate.
  policy     kernel-policy must be per-op: classic genl_ops (Linux 6.1 has
             no split ops), each with its .policy, which must take exactly
             the union of the attributes of the do and the dump request
             (the kernel validates both with it).
  types      u8/u16/u32/u64/s8/s16/s32/s64 -> NLA_<TYPE> (big-endian
             u16/u32/u64: NLA_BE16/NLA_BE32/NLA_BE64), uint -> NLA_UINT,
             sint -> NLA_SINT, string -> NLA_NUL_STRING (NLA_STRING with
             unterminated-ok), binary -> NLA_BINARY, flag -> NLA_FLAG,
             nest -> NLA_NESTED, indexed-array -> NLA_NESTED_ARRAY,
             bitfield32 -> NLA_BITFIELD32; pad is in no policy.
  bounds     Integers: min/max of checks, or those an enum implies (its
             lowest value when not 0, its highest), as ynl-gen-c does;
             a bound equal to the type's own limit is no bound.
             Strings and binaries: max-len = the policy's .len (strings
             without their NUL), exact-len = NLA_POLICY_EXACT_LEN,
             min-len = NLA_POLICY_MIN_LEN.  Names resolve through the
             spec's consts and the uapi header (TM_*).
  tmctl      libmnl types: u8/s8 -> MNL_TYPE_U8 ... u64/s64 -> MNL_TYPE_U64
             (libmnl has no signed types, only sizes), string ->
             MNL_TYPE_NUL_STRING, binary -> MNL_TYPE_BINARY, flag ->
             MNL_TYPE_FLAG, nest -> MNL_TYPE_NESTED; every attribute but
             pad has an entry; tm_attr_ipv6() names exactly the binary
             attributes of exact-len 16.
  hints      every binary attribute has a display-hint (ynl prints
             addresses through it).

    tools/spec-check.py [--top DIR] [--ksrc DIR | --schema FILE]
                        [--spec FILE] [--uapi FILE] [--kmod DIR]
                        [--tmctl FILE]

--top is the tree the other paths default to (the script's parent);
--ksrc the Linux 6.12 sources holding Documentation/netlink/ (default
TOP/build/linux-6.12, extracted by `make spec-check`).
"""

import argparse
import bisect
import os
import re
import sys

import jsonschema
import yaml


class InputError(Exception):
    """An input is missing or cannot be parsed: exit 2."""


def const_value(v):
    """A const's value: an integer (also written as a string: "0x10"), or
    the string itself."""
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return v
    return v


def c_upper(name):
    return name.upper().replace('-', '_')


def c_lower(name):
    return name.lower().replace('-', '_')


# --- reporting -------------------------------------------------------------

class Report:
    def __init__(self, top):
        self.top = top
        self.errors = []

    def rel(self, path):
        try:
            r = os.path.relpath(path, self.top)
        except ValueError:
            return path
        return path if r.startswith('..') else r

    def err(self, path, line, msg):
        where = self.rel(path) + (':%d' % line if line else '')
        self.errors.append('%s: %s' % (where, msg))


# --- C sources ---------------------------------------------------------------

INT_RE = re.compile(r'(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*$')

# Kernel constants the policies may use, beyond the uapi header and the
# module's own macros.
KERNEL_CONSTS = {
    'U8_MAX': 0xff, 'U16_MAX': 0xffff, 'U32_MAX': 0xffffffff,
    'U64_MAX': 2 ** 64 - 1,
    'S8_MIN': -2 ** 7, 'S8_MAX': 2 ** 7 - 1,
    'S16_MIN': -2 ** 15, 'S16_MAX': 2 ** 15 - 1,
    'S32_MIN': -2 ** 31, 'S32_MAX': 2 ** 31 - 1,
    'S64_MIN': -2 ** 63, 'S64_MAX': 2 ** 63 - 1,
    'INT_MIN': -2 ** 31, 'INT_MAX': 2 ** 31 - 1, 'UINT_MAX': 0xffffffff,
    'IPPROTO_ICMP': 1, 'IPPROTO_TCP': 6, 'IPPROTO_UDP': 17,
    'IPPROTO_ICMPV6': 58, 'IPPROTO_SCTP': 132,
    'ETH_ALEN': 6, 'IFNAMSIZ': 16,
}
SIZEOF = {
    'struct in6_addr': 16, 'struct in_addr': 4, '__be16': 2, '__be32': 4,
    '__be64': 8, 'u8': 1, 'u16': 2, 'u32': 4, 'u64': 8, '__u8': 1,
    '__u16': 2, '__u32': 4, '__u64': 8, 's32': 4, 'int': 4,
}


class CFile:
    """A C file with its comments blanked (lines kept), its line offsets
    and its macros."""

    def __init__(self, path):
        try:
            with open(path, encoding='utf-8') as f:
                self.raw = f.read()
        except OSError as e:
            raise InputError('%s: %s' % (path, e.strerror))
        self.path = path
        self.text = strip_comments(self.raw)
        self.nl = [i for i, c in enumerate(self.text) if c == '\n']
        self.macros = {}
        self._macros()

    def line(self, off):
        return bisect.bisect_left(self.nl, off) + 1

    def _macros(self):
        lines = self.text.split('\n')
        i = 0
        while i < len(lines):
            m = re.match(r'\s*#\s*define\s+(\w+)(\([^)]*\))?(.*)$', lines[i])
            start = i
            if not m:
                i += 1
                continue
            body = m.group(3)
            while body.rstrip().endswith('\\') and i + 1 < len(lines):
                i += 1
                body = body.rstrip()[:-1] + ' ' + lines[i]
            i += 1
            if m.group(2):
                continue	# function-like: not expanded here
            self.macros[m.group(1)] = (body.strip(), self, start + 1)


def strip_comments(text):
    """Blank C comments, keeping newlines and string literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == '/' and text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def match_brace(text, start):
    """Offset of the bracket closing the one at start."""
    pairs = {'{': '}', '(': ')', '[': ']'}
    stack = []
    i = start
    while i < len(text):
        c = text[i]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ')}]':
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return i
        elif c in '"\'':
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j
        i += 1
    return -1


def split_top(text, base=0):
    """Split at the commas outside brackets: [(item, offset of item)]."""
    items, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif c in '"\'':
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j
        elif c == ',' and depth == 0:
            items.append((text[start:i], start))
            start = i + 1
        i += 1
    items.append((text[start:], start))
    out = []
    for item, off in items:
        stripped = item.strip()
        if stripped:
            out.append((stripped, base + off + len(item) - len(item.lstrip())))
    return out


def initializers(cfile, decl_re):
    """Each match of decl_re (ending at '{') with its brace body:
    (match, body, offset of body)."""
    for m in decl_re.finditer(cfile.text):
        open_at = m.end() - 1
        close = match_brace(cfile.text, open_at)
        if close < 0:
            raise InputError('%s:%d: unbalanced initializer' %
                             (cfile.path, cfile.line(open_at)))
        yield m, cfile.text[open_at + 1:close], open_at + 1


def designated(text):
    """'.a = x, .b = y' -> {'a': 'x', 'b': 'y'}."""
    fields = {}
    for item, _ in split_top(text):
        m = re.match(r'\.(\w+)\s*=\s*(.*)$', item, re.S)
        if m:
            fields[m.group(1)] = ' '.join(m.group(2).split())
    return fields


class Symbols:
    """Values of C names: the uapi header's, the module's macros, the
    kernel constants above; evaluated on demand."""

    def __init__(self):
        self.exprs = {}		# name -> (expression text, CFile, line)
        self.values = dict(KERNEL_CONSTS)
        self.busy = set()

    def add_macros(self, macros):
        for name, m in macros.items():
            self.exprs.setdefault(name, m)

    def value(self, name):
        if name in self.values:
            return self.values[name]
        if name not in self.exprs or name in self.busy:
            raise KeyError(name)
        self.busy.add(name)
        try:
            v = self.eval(self.exprs[name][0])
        finally:
            self.busy.discard(name)
        self.values[name] = v
        return v

    def eval(self, expr):
        """A C constant expression: integers, names, sizeof, operators;
        a string literal gives its text.  KeyError for an unknown name,
        ValueError for what is not a constant."""
        expr = expr.strip()
        m = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', expr)
        if m:
            return m.group(1)

        def size(mo):
            t = ' '.join(mo.group(1).split())
            if t not in SIZEOF:
                raise ValueError('sizeof(%s)' % t)
            return str(SIZEOF[t])
        expr = re.sub(r'sizeof\s*\(\s*([\w\s]+?)\s*\)', size, expr)
        out = []
        for tok in re.findall(r'0[xX][0-9a-fA-F]+\w*|\d+\w*|[A-Za-z_]\w*|'
                              r'<<|>>|\S', expr):
            if INT_RE.match(tok):
                out.append(str(int(INT_RE.match(tok).group(1), 0)))
            elif re.match(r'[A-Za-z_]', tok):
                v = self.value(tok)
                if not isinstance(v, int):
                    raise ValueError(tok)
                out.append('(%d)' % v)
            elif tok in ('+', '-', '*', '%', '<<', '>>', '|', '&', '~',
                         '(', ')', '^'):
                out.append(tok)
            elif tok == '/':
                out.append('//')
            else:
                raise ValueError(tok)
        if not out:
            raise ValueError(expr)
        try:
            return int(eval(' '.join(out), {'__builtins__': {}}, {}))
        except Exception:
            raise ValueError(expr)


# --- the uapi header -------------------------------------------------------

class Uapi:
    """#defines and enums of the uapi header."""

    def __init__(self, path, syms):
        self.f = CFile(path)
        self.defines = {}	# name -> (value text, line)
        self.enums = []		# {tag, line, members: [(name, value, line)]}
        self.guard = None
        m = re.search(r'#\s*ifndef\s+(\w+)', self.f.text)
        if m:
            self.guard = m.group(1)
        for name, (body, _, line) in self.f.macros.items():
            if name == self.guard:
                continue
            self.defines[name] = (body, line)
        syms.add_macros(self.f.macros)
        decl = re.compile(r'\benum\s+(\w+\s*)?\{')
        for m, body, off in initializers(self.f, decl):
            tag = m.group(1).strip() if m.group(1) else None
            members, val = [], 0
            for item, ioff in split_top(body, off):
                mm = re.fullmatch(r'(\w+)\s*(?:=\s*(.+))?', item, re.S)
                if not mm:
                    raise InputError('%s:%d: cannot parse enumerator %r' %
                                     (path, self.f.line(ioff), item))
                if mm.group(2):
                    try:
                        val = syms.eval(mm.group(2))
                    except (KeyError, ValueError) as e:
                        raise InputError('%s:%d: cannot evaluate %s (%s)' %
                                         (path, self.f.line(ioff),
                                          mm.group(2), e))
                members.append((mm.group(1), val, self.f.line(ioff)))
                syms.values[mm.group(1)] = val
                val += 1
            self.enums.append({'tag': tag, 'line': self.f.line(m.start()),
                               'members': members})


# --- the spec ----------------------------------------------------------------

def yaml_lines(node, path=(), out=None, depth=0):
    """Map each path of a composed YAML document to its line."""
    if out is None:
        out = {}
    if depth > 32:
        return out
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            out.setdefault(path + (k.value,), k.start_mark.line + 1)
            yaml_lines(v, path + (k.value,), out, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            yaml_lines(v, path + (i,), out, depth + 1)
    return out


INT_TYPES = {
    'u8': (0, 2 ** 8 - 1), 'u16': (0, 2 ** 16 - 1), 'u32': (0, 2 ** 32 - 1),
    'u64': (0, 2 ** 64 - 1), 'uint': (0, 2 ** 64 - 1),
    's8': (-2 ** 7, 2 ** 7 - 1), 's16': (-2 ** 15, 2 ** 15 - 1),
    's32': (-2 ** 31, 2 ** 31 - 1), 's64': (-2 ** 63, 2 ** 63 - 1),
    'sint': (-2 ** 63, 2 ** 63 - 1),
}

NLA_OF = {
    'u8': 'NLA_U8', 'u16': 'NLA_U16', 'u32': 'NLA_U32', 'u64': 'NLA_U64',
    's8': 'NLA_S8', 's16': 'NLA_S16', 's32': 'NLA_S32', 's64': 'NLA_S64',
    'uint': 'NLA_UINT', 'sint': 'NLA_SINT', 'string': 'NLA_NUL_STRING',
    'binary': 'NLA_BINARY', 'flag': 'NLA_FLAG', 'nest': 'NLA_NESTED',
    'indexed-array': 'NLA_NESTED_ARRAY', 'bitfield32': 'NLA_BITFIELD32',
}

MNL_OF = {
    'u8': 'MNL_TYPE_U8', 's8': 'MNL_TYPE_U8', 'u16': 'MNL_TYPE_U16',
    's16': 'MNL_TYPE_U16', 'u32': 'MNL_TYPE_U32', 's32': 'MNL_TYPE_U32',
    'u64': 'MNL_TYPE_U64', 's64': 'MNL_TYPE_U64',
    'string': 'MNL_TYPE_NUL_STRING', 'binary': 'MNL_TYPE_BINARY',
    'flag': 'MNL_TYPE_FLAG', 'nest': 'MNL_TYPE_NESTED',
    'indexed-array': 'MNL_TYPE_NESTED', 'bitfield32': 'MNL_TYPE_BINARY',
}

MCAST_FLAGS = {
    'uns-admin-perm': 'GENL_MCAST_CAP_NET_ADMIN',
    'admin-perm': 'GENL_MCAST_CAP_SYS_ADMIN',
}


class Spec:
    def __init__(self, path, rep):
        self.path = path
        self.rep = rep
        try:
            with open(path, encoding='utf-8') as f:
                text = f.read()
        except OSError as e:
            raise InputError('%s: %s' % (path, e.strerror))
        try:
            self.y = yaml.safe_load(text)
            self.lines = yaml_lines(yaml.compose(text, Loader=yaml.SafeLoader))
        except yaml.YAMLError as e:
            raise InputError('%s: %s' % (path, e))
        self.first_line = text.split('\n', 1)[0]

    def line(self, *path):
        """The line of path, or of its longest known prefix."""
        path = tuple(path)
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path)

    def err(self, path, msg):
        self.rep.err(self.path, self.line(*path), msg)

    def build(self):
        """Derive the C names and values (the rules in the docstring)."""
        y = self.y
        self.name = y['name']
        self.protocol = y.get('protocol', 'genetlink')
        ops = y['operations']
        opfx = ops.get('name-prefix')
        if opfx and opfx.endswith('cmd-'):
            self.pfx = opfx[:-len('cmd-')]
        else:
            self.pfx = self.name + '-'
        self.op_prefix = c_upper(opfx or self.name + '-cmd-')

        self.consts = {}	# spec name -> value
        self.defs = {}		# spec name -> definition
        for i, d in enumerate(y.get('definitions', [])):
            d = dict(d, _path=('definitions', i))
            self.defs[d['name']] = d
            if d['type'] == 'const':
                self.consts[d['name']] = d['value']
            elif d['type'] in ('enum', 'flags'):
                self._enum_values(d)

        self.sets = {}
        self.attrs_by_c = {}	# C name -> attribute
        self.nattrs = 0
        for si, s in enumerate(y['attribute-sets']):
            s = dict(s, _path=('attribute-sets', si))
            self.sets[s['name']] = s
        # Subsets last: they take their names and values from their set.
        for s in sorted(self.sets.values(),
                        key=lambda s: bool(s.get('subset-of'))):
            self._attr_set(s)

        self.ops = []
        val = 1
        for oi, op in enumerate(ops['list']):
            val = op.get('value', val)
            op = dict(op, _path=('operations', 'list', oi), _value=val,
                      _c=self.op_prefix + c_upper(op['name']))
            self.ops.append(op)
            val += 1
        self.mcgrps = []
        for gi, g in enumerate(y.get('mcast-groups', {}).get('list', [])):
            cname = c_upper(g.get('c-define-name',
                                  self.pfx + 'mcgrp-' + g['name']))
            self.mcgrps.append(dict(g, _path=('mcast-groups', 'list', gi),
                                    _c=cname))

    def _enum_values(self, d):
        entries, val = [], d.get('value-start', 0)
        if isinstance(val, str):
            val = int(val, 0)
        for ei, e in enumerate(d.get('entries', [])):
            if isinstance(e, dict):
                name = e['name']
                val = e.get('value', val)
            else:
                name = e
            entries.append((name, val, d['_path'] + ('entries', ei)))
            val += 1
        d['_entries'] = entries
        d['_vpfx'] = d.get('name-prefix', self.pfx + d['name'] + '-')

    def enum_value(self, d, v):
        return (1 << v) if d['type'] == 'flags' else v

    def _attr_set(self, s):
        if s.get('subset-of'):
            parent = self.sets[s['subset-of']]
            pfx = parent.get('name-prefix') or self._default_set_pfx(parent)
        else:
            pfx = s.get('name-prefix') or self._default_set_pfx(s)
        s['_pfx'] = c_upper(pfx)
        s['_attrs'] = {}
        val = 1
        for ai, a in enumerate(s['attributes']):
            if s.get('subset-of'):
                src = self.sets[s['subset-of']]['_attrs'].get(a['name'], {})
                a = dict(src, **a)
                val = src.get('_value', val)
            val = a.get('value', val)
            a = dict(a, _set=s['name'], _value=val, _c=s['_pfx'] +
                     c_upper(a['name']),
                     _path=s['_path'] + ('attributes', ai))
            s['_attrs'][a['name']] = a
            if not s.get('subset-of'):
                self.attrs_by_c[a['_c']] = a
                self.nattrs += 1
            val += 1

    def _default_set_pfx(self, s):
        if s['name'] == self.name:
            return self.pfx + 'a-'
        return self.pfx + 'a-' + s['name'] + '-'

    def limit(self, a, key):
        """A check's value as an integer: a number, a const of the spec,
        "NAME - 1", or a type limit ("u32-max")."""
        v = a['checks'][key]
        if isinstance(v, int):
            return v
        m = re.fullmatch(r'([0-9A-Za-z_-]+)( - 1)?', v)
        base = m.group(1) if m else v
        sub = 1 if m and m.group(2) else 0
        lm = re.fullmatch(r'([us](?:8|16|32|64))-(min|max)', base)
        if lm:
            lo, hi = INT_TYPES[lm.group(1)]
            return (lo if lm.group(2) == 'min' else hi) - sub
        c = const_value(self.consts.get(base))
        if isinstance(c, int):
            return c - sub
        raise KeyError(base)

    def int_bounds(self, a):
        """(min, max) the spec gives an integer attribute, None for none."""
        lo, hi = INT_TYPES[a['type']]
        checks = a.get('checks', {})
        smin = self.limit(a, 'min') if 'min' in checks else None
        smax = self.limit(a, 'max') if 'max' in checks else None
        if 'enum' in a and a['enum'] in self.defs:
            d = self.defs[a['enum']]
            vals = [self.enum_value(d, v) for _, v, _ in d['_entries']]
            if d['type'] == 'enum' and vals and \
               max(vals) - min(vals) + 1 == len(vals):
                if smin is None and (min(vals) != 0 or a['type'][0] == 's'):
                    smin = min(vals)
                if smax is None:
                    smax = max(vals)
        smin = None if smin == lo else smin
        smax = None if smax == hi else smax
        return smin, smax

    def len_bounds(self, a):
        """(min-len, max-len) the spec gives a string or binary."""
        checks = a.get('checks', {})
        if 'exact-len' in checks:
            e = self.limit(a, 'exact-len')
            return e, e
        lo = self.limit(a, 'min-len') if 'min-len' in checks else None
        hi = self.limit(a, 'max-len') if 'max-len' in checks else None
        return (lo or None), hi


# --- 1. the schema -----------------------------------------------------------

def check_schema(spec, schema_path, rep):
    if not spec.first_line.startswith('# SPDX-License-Identifier: '):
        rep.err(spec.path, 1, 'the first line must be the SPDX tag '
                '(ynl refuses the spec without it)')
    try:
        with open(schema_path, encoding='utf-8') as f:
            schema = yaml.safe_load(f)
    except OSError as e:
        raise InputError('%s: %s (the JSON schema of the spec\'s protocol, '
                         'from Linux 6.12: make spec-check extracts it, or '
                         'give --ksrc or --schema)' % (schema_path,
                                                       e.strerror))
    # The kernel's schemas say draft-07 (as an https URL jsonschema does
    # not know): validate with draft 7.
    jsonschema.Draft7Validator.check_schema(schema)
    val = jsonschema.Draft7Validator(schema)
    n = 0
    for e in sorted(val.iter_errors(spec.y), key=lambda e: list(map(
            str, e.absolute_path))):
        path = tuple(e.absolute_path)
        spec.err(path, 'schema %s: %s: %s' % (
            os.path.basename(schema_path),
            '/'.join(str(p) for p in path) or '(top)', e.message))
        n += 1
    return n


# --- 2. the uapi header ------------------------------------------------------

def check_uapi(spec, uapi, rep):
    up = uapi.f.path
    want_defs = {}		# C name -> (value, spec path)
    y = spec.y
    want_defs[c_upper(y.get('c-family-name', spec.name + '-family-name'))] = \
        (spec.name, ('name',))
    want_defs[c_upper(y.get('c-version-name',
                            spec.name + '-family-version'))] = \
        (y.get('version', 1), ('version',) if 'version' in y else ('name',))
    want_enums = []
    for d in spec.defs.values():
        if d.get('header') or d.get('scope', 'uapi') != 'uapi':
            continue
        if d['type'] == 'const':
            want_defs[c_upper(spec.pfx + d['name'])] = (
                const_value(d['value']), d['_path'])
            continue
        if d['type'] not in ('enum', 'flags'):
            continue
        if 'enum-name' in d:
            tag = c_lower(d['enum-name']) if d['enum-name'] else None
        else:
            tag = c_lower(spec.pfx + d['name'])
        members = [(c_upper(d['_vpfx'] + n), spec.enum_value(d, v), p)
                   for n, v, p in d['_entries']]
        if d.get('render-max'):
            mx = c_upper(d['_vpfx'])
            if d['type'] == 'flags':
                mask = 0
                for _, v, _ in members:
                    mask |= v
                members.append((mx + 'MASK', mask, d['_path']))
            elif members:
                last = max(v for _, v, _ in members)
                members.append(('__' + mx + 'MAX', last + 1, d['_path']))
                members.append((mx + 'MAX', last, d['_path']))
        want_enums.append(('%s %s' % (d['type'], d['name']), tag, members,
                           d['_path'], None))
    for s in spec.sets.values():
        if s.get('subset-of'):
            continue
        tag = c_lower(s['enum-name']) if s.get('enum-name') else None
        members = [(a['_c'], a['_value'], a['_path'])
                   for a in s['_attrs'].values()]
        last = max((v for _, v, _ in members), default=0)
        cnt = c_upper(s.get('attr-cnt-name', '__' + s['_pfx'] + 'max'))
        mx = c_upper(s.get('attr-max-name', s['_pfx'] + 'max'))
        if y.get('max-by-define'):
            want_defs[mx] = (last, s['_path'])
            members.append((cnt, last + 1, s['_path']))
        else:
            members += [(cnt, last + 1, s['_path']), (mx, last, s['_path'])]
        want_enums.append(('attribute-set %s' % s['name'], tag, members,
                           s['_path'], s['_pfx'] + 'UNSPEC'))
    ops = y['operations']
    tag = c_lower(ops['enum-name']) if ops.get('enum-name') else None
    members = [(op['_c'], op['_value'], op['_path']) for op in spec.ops]
    last = max((v for _, v, _ in members), default=0)
    cnt = c_upper(y.get('cmd-cnt-name', '__' + spec.op_prefix + 'MAX'))
    mx = c_upper(y.get('cmd-max-name', spec.op_prefix + 'MAX'))
    if y.get('max-by-define'):
        want_defs[mx] = (last, ('operations',))
        members.append((cnt, last + 1, ('operations',)))
    else:
        members += [(cnt, last + 1, ('operations',)),
                    (mx, last, ('operations',))]
    want_enums.append(('operations', tag, members, ('operations',),
                       spec.op_prefix + 'UNSPEC'))
    for g in spec.mcgrps:
        want_defs[g['_c']] = (g['name'], g['_path'])

    hdr = y.get('uapi-header', 'linux/%s.h' % spec.name)
    hname = hdr[6:-2] if hdr.startswith('linux/') and hdr.endswith('.h') \
        else spec.name
    guard = '_UAPI_LINUX_%s_H' % c_upper(hname)
    if uapi.guard != guard:
        rep.err(up, 1, 'include guard %s, the spec\'s uapi-header %s wants '
                '%s' % (uapi.guard, hdr, guard))

    syms = SYMS
    for name, (want, path) in want_defs.items():
        if name not in uapi.defines:
            spec.err(path, '%s (%r) is not #defined in %s' %
                     (name, want, rep.rel(up)))
            continue
        text, line = uapi.defines[name]
        try:
            got = syms.eval(text)
        except (KeyError, ValueError):
            rep.err(up, line, '%s: cannot evaluate %r' % (name, text))
            continue
        if got != want:
            rep.err(up, line, '%s is %r, the spec (%s:%s) says %r' %
                    (name, got, rep.rel(spec.path), spec.line(*path), want))
    for name, (text, line) in uapi.defines.items():
        if name not in want_defs:
            rep.err(up, line, '#define %s is not in the spec (add a const '
                    'or a definition)' % name)

    matched = set()
    for what, tag, members, path, unspec in want_enums:
        enum = None
        for i, e in enumerate(uapi.enums):
            if tag and e['tag'] == tag:
                enum = i
            elif not tag and members and e['tag'] is None and \
                    any(m[0] == members[0][0] for m in e['members']):
                enum = i
        if enum is None:
            other = [i for i, e in enumerate(uapi.enums) if members and
                     any(m[0] == members[0][0] for m in e['members'])]
            if not other:
                spec.err(path, '%s: no enum %s in %s' % (
                    what, tag or 'holding ' + members[0][0], rep.rel(up)))
                continue
            enum = other[0]
            got = uapi.enums[enum]['tag']
            spec.err(path, '%s: %s holds %s, the spec wants %s (%s)' % (
                what, 'enum ' + got if got else 'an anonymous enum',
                members[0][0], 'enum ' + tag if tag else 'no tag',
                'enum-name: ' + got.replace('_', '-') if got else
                'enum-name: null'))
        matched.add(enum)
        e = uapi.enums[enum]
        got = {n: (v, line) for n, v, line in e['members']}
        for n, v, p in members:
            if n not in got:
                rep.err(up, e['line'], 'enum %s lacks %s = %d (%s, %s:%s)' %
                        (e['tag'] or '(anonymous)', n, v, what,
                         rep.rel(spec.path), spec.line(*p)))
            elif got[n][0] != v:
                rep.err(up, got[n][1], '%s = %d, the spec (%s:%s) gives %d'
                        % (n, got[n][0], rep.rel(spec.path), spec.line(*p),
                           v))
        names = {n for n, _, _ in members}
        spec_has_0 = any(v == 0 for _, v, _ in members)
        for n, v, line in e['members']:
            if n in names:
                continue
            if unspec and n == unspec and v == 0 and not spec_has_0:
                continue
            rep.err(up, line, '%s = %d is not in the spec (%s)' %
                    (n, v, what))
    for i, e in enumerate(uapi.enums):
        if i not in matched:
            rep.err(up, e['line'], 'enum %s is not in the spec' %
                    (e['tag'] or '(anonymous)'))


# --- 3. the kernel -----------------------------------------------------------

POLICY_DECL = re.compile(r'\b(?:static\s+)?const\s+struct\s+nla_policy\s+'
                         r'(\w+)\s*\[([^\]]*)\]\s*=\s*\{')
RANGE_DECL = re.compile(r'\b(?:static\s+)?(?:const\s+)?struct\s+'
                        r'netlink_range_validation(?:_signed)?\s+(\w+)\s*='
                        r'\s*\{')
OPS_DECL = re.compile(r'\b(?:static\s+)?(?:const\s+)?struct\s+'
                      r'(genl_ops|genl_small_ops|genl_split_ops)\s+(\w+)\s*'
                      r'\[[^\]]*\]\s*(?:__\w+\s*)?=\s*\{')
MCGRP_DECL = re.compile(r'\b(?:static\s+)?(?:const\s+)?struct\s+'
                        r'genl_multicast_group\s+(\w+)\s*\[[^\]]*\]\s*'
                        r'(?:__\w+\s*)?=\s*\{')
FAMILY_DECL = re.compile(r'\bstruct\s+genl_family\s+(\w+)\s*'
                         r'(?:__\w+\s*)?=\s*\{')


class Entry:
    """One parsed nla_policy entry."""

    def __init__(self, attr, nla, file, line, via):
        self.attr = attr	# C name of the attribute
        self.nla = nla		# NLA_* type
        self.file = file
        self.line = line
        self.via = via		# macro the entry came from, or None
        self.min = self.max = None		# integer bounds
        self.min_len = self.max_len = None	# length bounds
        self.mask = None

    def where(self):
        return self.via and ' (from %s)' % self.via or ''


class Kernel:
    def __init__(self, kdir, rep):
        self.rep = rep
        self.files = []
        for root, dirs, files in os.walk(kdir):
            dirs.sort()
            rel = os.path.relpath(root, kdir)
            if rel == 'core' or rel.startswith('core' + os.sep):
                continue
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    self.files.append(CFile(os.path.join(root, f)))
        if not any(f.path.endswith('.c') for f in self.files):
            raise InputError('%s: no C file' % kdir)
        self.macros = {}
        for f in self.files:
            for name, m in f.macros.items():
                self.macros.setdefault(name, m)
        SYMS.add_macros(self.macros)
        self.ranges = {}
        self.policies = {}	# name -> {file, line, size, entries{}}
        self.ops = []		# (kind, name, file, line, [fields, line])
        self.mcgrps = []
        self.families = []
        for f in self.files:
            self._parse(f)

    def _parse(self, f):
        for m, body, off in initializers(f, RANGE_DECL):
            self.ranges[m.group(1)] = (designated(body), f, f.line(off))
        for m, body, off in initializers(f, POLICY_DECL):
            name = m.group(1)
            if name in self.policies:
                self.rep.err(f.path, f.line(m.start()), 'policy %s is '
                             'defined twice (also %s:%d): the ops cannot '
                             'be told apart' % (name, self.rep.rel(
                                 self.policies[name]['file'].path),
                                 self.policies[name]['line']))
            self.policies[name] = {
                'file': f, 'line': f.line(m.start()), 'size': m.group(2),
                'items': self._expand([(t, f.line(o)) for t, o in
                                       split_top(body, off)], f)}
        for m, body, off in initializers(f, OPS_DECL):
            items = []
            for item, ioff in split_top(body, off):
                if item.startswith('{') and item.endswith('}'):
                    items.append((designated(item[1:-1]), f.line(ioff)))
            self.ops.append((m.group(1), m.group(2), f, f.line(m.start()),
                             items))
        for m, body, off in initializers(f, MCGRP_DECL):
            items = []
            for item, ioff in split_top(body, off):
                mm = re.match(r'(?:\[[^\]]*\]\s*=\s*)?\{(.*)\}$', item, re.S)
                if mm:
                    items.append((designated(mm.group(1)), f.line(ioff)))
            self.mcgrps.append((m.group(1), f, f.line(m.start()), items))
        for m, body, off in initializers(f, FAMILY_DECL):
            self.families.append((m.group(1), f, f.line(m.start()),
                                  designated(body)))

    def _expand(self, items, f, via=None, depth=0):
        """Policy items [(text, line)] with object-like macros
        (TM_POLICY_NAME) replaced by their entries: [(text, file, line,
        macro)], the line that of the macro's use."""
        out = []
        for text, line in items:
            macro = f.macros.get(text) or self.macros.get(text)
            if re.fullmatch(r'\w+', text) and macro and depth < 8:
                body, mf, mline = macro
                sub = [(t, line) for t, _ in split_top(body)]
                out += self._expand(sub, f, via or '%s, %s:%d' % (
                    text, self.rep.rel(mf.path), mline), depth + 1)
            else:
                out.append((text, f, line, via))
        return out

    def entry(self, pname, text, f, line, via):
        """Parse '[TM_A_X] = ...' into an Entry (None and an error when the
        form is unknown)."""
        m = re.fullmatch(r'\[\s*(\w+)\s*\]\s*=\s*(.+)', text, re.S)
        if not m:
            self.rep.err(f.path, line, '%s: cannot parse entry %r' %
                         (pname, text))
            return None
        attr, val = m.group(1), ' '.join(m.group(2).split())
        try:
            return self._value(attr, val, f, line, via)
        except (KeyError, ValueError) as e:
            self.rep.err(f.path, line, '%s[%s]: cannot evaluate %r (%s)' %
                         (pname, attr, val, e))
            return None

    def _value(self, attr, val, f, line, via):
        ev = SYMS.eval
        if val.startswith('{'):
            fl = designated(val.strip('{} '))
            e = Entry(attr, fl.get('type', 'NLA_UNSPEC'), f, line, via)
            if 'len' in fl:
                if e.nla in ('NLA_BINARY', 'NLA_STRING', 'NLA_NUL_STRING'):
                    e.max_len = ev(fl['len'])
                elif e.nla == 'NLA_UNSPEC':
                    e.min_len = ev(fl['len'])
            for k in fl:
                if k not in ('type', 'len'):
                    raise ValueError('field .%s' % k)
            return e
        m = re.fullmatch(r'(NLA_POLICY_\w+)\s*\((.*)\)', val)
        if not m:
            m = re.fullmatch(r'(NLA_POLICY_ETH_ADDR\w*)', val)
            if m:
                e = Entry(attr, 'NLA_BINARY', f, line, via)
                e.min_len = e.max_len = 6
                return e
            raise ValueError('unknown form')
        mac = m.group(1)
        args = [a for a, _ in split_top(m.group(2))]
        if mac in ('NLA_POLICY_EXACT_LEN', 'NLA_POLICY_EXACT_LEN_WARN'):
            e = Entry(attr, 'NLA_BINARY', f, line, via)
            e.min_len = e.max_len = ev(args[0])
        elif mac == 'NLA_POLICY_MIN_LEN':
            e = Entry(attr, 'NLA_BINARY', f, line, via)
            e.min_len = ev(args[0])
        elif mac == 'NLA_POLICY_MAX_LEN':
            e = Entry(attr, 'NLA_BINARY', f, line, via)
            e.max_len = ev(args[0])
        elif mac in ('NLA_POLICY_NESTED', 'NLA_POLICY_NESTED_ARRAY'):
            e = Entry(attr, 'NLA_NESTED' if mac == 'NLA_POLICY_NESTED'
                      else 'NLA_NESTED_ARRAY', f, line, via)
        elif mac == 'NLA_POLICY_BITFIELD32':
            e = Entry(attr, 'NLA_BITFIELD32', f, line, via)
        elif mac in ('NLA_POLICY_RANGE', 'NLA_POLICY_MIN', 'NLA_POLICY_MAX',
                     'NLA_POLICY_FULL_RANGE', 'NLA_POLICY_FULL_RANGE_SIGNED',
                     'NLA_POLICY_MASK'):
            e = Entry(attr, args[0], f, line, via)
            lo = hi = None
            if mac == 'NLA_POLICY_RANGE':
                lo, hi = ev(args[1]), ev(args[2])
            elif mac == 'NLA_POLICY_MIN':
                lo = ev(args[1])
            elif mac == 'NLA_POLICY_MAX':
                hi = ev(args[1])
            elif mac == 'NLA_POLICY_MASK':
                e.mask = ev(args[1])
            else:
                rname = args[1].lstrip('&').strip()
                if rname not in self.ranges:
                    raise KeyError(rname)
                r = self.ranges[rname][0]
                lo = ev(r['min']) if 'min' in r else 0
                hi = ev(r['max']) if 'max' in r else 0
            if e.nla == 'NLA_BINARY':
                e.min_len, e.max_len = lo, hi
            else:
                e.min, e.max = lo, hi
        else:
            raise ValueError('unknown macro %s' % mac)
        return e


def expected_nla(a):
    t = a['type']
    if t == 'string' and a.get('checks', {}).get('unterminated-ok'):
        return 'NLA_STRING'
    if a.get('byte-order') == 'big-endian' and t in ('u16', 'u32', 'u64'):
        return 'NLA_BE' + t[1:]
    return NLA_OF.get(t)


def fmt_bounds(lo, hi):
    return '%s..%s' % ('' if lo is None else lo, '' if hi is None else hi)


def check_entry(spec, e, pname, rep):
    """One policy entry against its attribute."""
    a = spec.attrs_by_c.get(e.attr)
    at = '%s[%s]%s' % (pname, e.attr, e.where())
    if a is None:
        rep.err(e.file.path, e.line, '%s: no attribute %s in the spec' %
                (at, e.attr))
        return
    sl = '%s:%s' % (rep.rel(spec.path), spec.line(*a['_path']))
    want = expected_nla(a)
    if a['type'] in ('pad', 'unused'):
        rep.err(e.file.path, e.line, '%s: %s is of type %s in the spec '
                '(%s) and takes no policy' % (at, a['name'], a['type'], sl))
        return
    if e.nla != want:
        rep.err(e.file.path, e.line, '%s: type %s, the spec\'s %s %s (%s) '
                'wants %s' % (at, e.nla, a['type'], a['name'], sl, want))
        return
    try:
        if a['type'] in INT_TYPES:
            lo, hi = INT_TYPES[a['type']]
            kmin = None if e.min in (None, lo) else e.min
            kmax = None if e.max in (None, hi) else e.max
            smin, smax = spec.int_bounds(a)
            if (kmin, kmax) != (smin, smax):
                rep.err(e.file.path, e.line, '%s: bounds %s, the spec\'s '
                        '%s (%s) gives %s' % (at, fmt_bounds(kmin, kmax),
                                              a['name'], sl,
                                              fmt_bounds(smin, smax)))
            fm = a.get('checks', {}).get('flags-mask')
            if (e.mask is not None or fm) and fm in spec.defs:
                d = spec.defs[fm]
                mask = 0
                for _, v, _ in d['_entries']:
                    mask |= spec.enum_value(d, v)
                if e.mask != mask:
                    rep.err(e.file.path, e.line, '%s: mask %s, the spec\'s '
                            'flags-mask %s (%s) gives 0x%x' %
                            (at, e.mask, fm, sl, mask))
        elif a['type'] in ('string', 'binary'):
            smin, smax = spec.len_bounds(a)
            kmin = e.min_len or None
            if (kmin, e.max_len) != (smin, smax):
                rep.err(e.file.path, e.line, '%s: length %s, the spec\'s '
                        '%s (%s) gives %s' % (at, fmt_bounds(kmin, e.max_len),
                                              a['name'], sl,
                                              fmt_bounds(smin, smax)))
    except KeyError as k:
        spec.err(a['_path'], '%s: check names %s, not a const' %
                 (a['name'], k))


def check_kernel(spec, k, rep):
    y = spec.y
    # Every policy entry, used or not.
    parsed = {}
    for pname, p in k.policies.items():
        entries = {}
        for text, f, line, via in p['items']:
            e = k.entry(pname, text, f, line, via)
            if e is None:
                continue
            if e.attr in entries:
                rep.err(f.path, line, '%s: %s twice' % (pname, e.attr))
            entries[e.attr] = e
            check_entry(spec, e, pname, rep)
        parsed[pname] = entries

    ops_tables = [o for o in k.ops if o[0] in ('genl_ops',
                                                'genl_small_ops',
                                                'genl_split_ops')]
    fam = None
    for name, f, line, fields in k.families:
        fam = (name, f, line, fields)
        want_name = c_upper(y.get('c-family-name',
                                  spec.name + '-family-name'))
        want_ver = c_upper(y.get('c-version-name',
                                 spec.name + '-family-version'))
        if fields.get('name') != want_name:
            rep.err(f.path, line, '%s: .name = %s, the spec says %s' %
                    (name, fields.get('name'), want_name))
        if fields.get('version') != want_ver:
            rep.err(f.path, line, '%s: .version = %s, the spec says %s' %
                    (name, fields.get('version'), want_ver))
        if 'policy' in fields and y.get('kernel-policy') != 'global':
            rep.err(f.path, line, '%s: a family-wide .policy, the spec\'s '
                    'kernel-policy is %s' % (name, y.get('kernel-policy',
                                                         'split')))
        if fields.get('ops'):
            ops_tables = [o for o in ops_tables if o[1] == fields['ops']] \
                or ops_tables
    if fam is None:
        rep.err(k.files[0].path, None, 'no struct genl_family in the module')
    if not ops_tables:
        rep.err(k.files[0].path, None, 'no genl_ops table in the module')
        return
    if len(ops_tables) > 1:
        rep.err(ops_tables[1][2].path, ops_tables[1][3], 'a second ops '
                'table %s (the family\'s is %s): not checked' %
                (ops_tables[1][1], ops_tables[0][1]))
    kind, oname, of, oline, items = ops_tables[0]
    if kind != 'genl_ops' or y.get('kernel-policy', 'split') != 'per-op':
        rep.err(of.path, oline, '%s is a %s table; the spec\'s '
                'kernel-policy is %s: classic genl_ops with one policy per '
                'command need kernel-policy: per-op' %
                (oname, kind, y.get('kernel-policy', 'split (the default)')))

    max_name = {}
    for s in spec.sets.values():
        max_name[s['name']] = c_upper(s.get('attr-max-name',
                                            s['_pfx'] + 'max'))
    by_cmd = {}
    for fields, line in items:
        cmd = fields.get('cmd')
        if cmd in by_cmd:
            rep.err(of.path, line, '%s: %s twice' % (oname, cmd))
        by_cmd[cmd] = (fields, line)
    for op in spec.ops:
        sl = '%s:%s' % (rep.rel(spec.path), spec.line(*op['_path']))
        # An event alone (no do, no dump) is sent, never requested.
        if 'event' in op and 'do' not in op and 'dump' not in op:
            if op['_c'] in by_cmd:
                rep.err(of.path, by_cmd[op['_c']][1], '%s: %s is an event '
                        'only in the spec (%s)' % (oname, op['_c'], sl))
            continue
        if op['_c'] not in by_cmd:
            spec.err(op['_path'], 'operation %s: no %s in the kernel\'s %s' %
                     (op['name'], op['_c'], oname))
            continue
        fields, line = by_cmd.pop(op['_c'])
        at = '%s %s' % (oname, op['_c'])
        for mode, hook in (('do', 'doit'), ('dump', 'dumpit')):
            if (mode in op) != (hook in fields):
                rep.err(of.path, line, '%s: %s, the spec (%s) has %s' % (
                    at, ('.' + hook) if hook in fields else 'no .' + hook,
                    sl, mode if mode in op else 'no ' + mode))
        flags = {x.strip() for x in fields.get('flags', '').split('|')
                 if x.strip() and x.strip() != '0'}
        want = {c_upper('genl-' + x) for x in op.get('flags', [])}
        if flags != want:
            rep.err(of.path, line, '%s: .flags %s, the spec (%s) says %s' %
                    (at, ' | '.join(sorted(flags)) or '0', sl,
                     ' | '.join(sorted(want)) or '0'))
        val = {x.strip() for x in fields.get('validate', '').split('|')
               if x.strip() and x.strip() != '0'}
        want = {c_upper('genl-dont-validate-' + x)
                for x in op.get('dont-validate', [])}
        if val != want:
            rep.err(of.path, line, '%s: .validate %s, the spec (%s) says %s'
                    % (at, ' | '.join(sorted(val)) or '0', sl,
                       ' | '.join(sorted(want)) or '0'))
        aset = op.get('attribute-set')
        if kind != 'genl_ops':
            continue
        if fields.get('maxattr') != max_name.get(aset):
            rep.err(of.path, line, '%s: .maxattr = %s, the spec\'s '
                    'attribute-set %s wants %s' % (at, fields.get('maxattr'),
                                                   aset, max_name.get(aset)))
        pname = fields.get('policy')
        if not pname:
            rep.err(of.path, line, '%s: no .policy' % at)
            continue
        if pname not in parsed:
            rep.err(of.path, line, '%s: .policy = %s, not found in the '
                    'module (kmod/ but kmod/core)' % (at, pname))
            continue
        s = spec.sets.get(aset, {'_attrs': {}})
        want = {}
        for mode in ('do', 'dump'):
            req = (op.get(mode) or {}).get('request') or {}
            for n in req.get('attributes', []):
                a = s['_attrs'].get(n)
                if a is None:
                    spec.err(op['_path'], 'operation %s: %s request names '
                             '%s, not in attribute-set %s' %
                             (op['name'], mode, n, aset))
                    continue
                want.setdefault(a['_c'], (mode, a))
        got = parsed[pname]
        p = k.policies[pname]
        for c, (mode, a) in want.items():
            if c not in got:
                rep.err(p['file'].path, p['line'], '%s (policy of %s): no '
                        'entry for %s, which the spec\'s %s request takes '
                        '(%s)' % (pname, op['_c'], c, op['name'], sl))
        for c, e in got.items():
            if c not in want:
                rep.err(e.file.path, e.line, '%s (policy of %s): takes %s%s,'
                        ' which the spec\'s %s request does not (%s)' %
                        (pname, op['_c'], c, e.where(), op['name'], sl))
        size = p['size'].replace(' ', '')
        if size != max_name.get(aset, '') + '+1':
            rep.err(p['file'].path, p['line'], '%s[%s]: sized for %s + 1 '
                    'by the spec\'s attribute-set %s' %
                    (pname, p['size'], max_name.get(aset), aset))
    for cmd, (fields, line) in by_cmd.items():
        rep.err(of.path, line, '%s: %s is not an operation of the spec' %
                (oname, cmd))

    # Multicast groups.
    want = [(g['_c'], g) for g in spec.mcgrps]
    fam_grps = fam[3].get('mcgrps') if fam else None
    tables = [t for t in k.mcgrps if not fam_grps or t[0] == fam_grps]
    if want and not tables:
        spec.err(('mcast-groups',), 'no genl_multicast_group table in the '
                 'module')
    for gname, f, line, items in tables[:1]:
        if len(items) != len(want):
            rep.err(f.path, line, '%s: %d groups, the spec has %d' %
                    (gname, len(items), len(want)))
        for (fields, iline), (c, g) in zip(items, want):
            if fields.get('name') != c:
                rep.err(f.path, iline, '%s: .name = %s, the spec\'s group '
                        '%s is %s' % (gname, fields.get('name'), g['name'],
                                      c))
            flags = {x.strip() for x in fields.get('flags', '').split('|')
                     if x.strip() and x.strip() != '0'}
            wf = {MCAST_FLAGS.get(x, x) for x in g.get('flags', [])}
            if flags != wf:
                rep.err(f.path, iline, '%s: .flags %s, the spec\'s group %s '
                        'says %s' % (gname, ' | '.join(sorted(flags)) or '0',
                                     g['name'],
                                     ' | '.join(sorted(wf)) or '0'))
    return len(parsed)


# --- 4. tmctl ---------------------------------------------------------------

def check_tmctl(spec, path, rep):
    f = CFile(path)
    decl = re.compile(r'\benum\s+mnl_attr_data_type\s+tm_attr_types\s*'
                      r'\[[^\]]*\]\s*=\s*\{')
    found = list(initializers(f, decl))
    if not found:
        raise InputError('%s: no tm_attr_types[] table' % path)
    m, body, off = found[0]
    got = {}
    for item, ioff in split_top(body, off):
        mm = re.fullmatch(r'\[\s*(\w+)\s*\]\s*=\s*(\w+)', item)
        if not mm:
            rep.err(path, f.line(ioff), 'tm_attr_types: cannot parse %r' %
                    item)
            continue
        got[mm.group(1)] = (mm.group(2), f.line(ioff))
    tline = f.line(m.start())
    for c, a in spec.attrs_by_c.items():
        sl = '%s:%s' % (rep.rel(spec.path), spec.line(*a['_path']))
        if a['type'] in ('pad', 'unused'):
            if c in got and got[c][0] != 'MNL_TYPE_UNSPEC':
                rep.err(path, got[c][1], 'tm_attr_types[%s] = %s, a %s '
                        'attribute (%s)' % (c, got[c][0], a['type'], sl))
            continue
        want = MNL_OF.get(a['type'])
        if a['type'] == 'string' and \
                a.get('checks', {}).get('unterminated-ok'):
            want = 'MNL_TYPE_STRING'
        if want is None:
            continue
        if c not in got:
            rep.err(path, tline, 'tm_attr_types has no %s (%s, %s): '
                    'replies carrying it are not validated' %
                    (c, want, sl))
        elif got[c][0] != want:
            rep.err(path, got[c][1], 'tm_attr_types[%s] = %s, the spec\'s '
                    '%s %s (%s) wants %s' % (c, got[c][0], a['type'],
                                             a['name'], sl, want))
    for c, (t, line) in got.items():
        if c not in spec.attrs_by_c:
            rep.err(path, line, 'tm_attr_types[%s]: no such attribute in '
                    'the spec' % c)

    m = re.search(r'\btm_attr_ipv6\s*\([^)]*\)\s*\{', f.text)
    if not m:
        rep.err(path, None, 'no tm_attr_ipv6() (the 16-byte addresses)')
        return
    close = match_brace(f.text, m.end() - 1)
    body = f.text[m.end():close]
    cases = {c: f.line(m.end() + o) for c, o in
             ((x.group(1), x.start()) for x in
              re.finditer(r'\bcase\s+(\w+)\s*:', body))}
    want = {c for c, a in spec.attrs_by_c.items() if a['type'] == 'binary'
            and a.get('checks', {}).get('exact-len') == 16}
    fline = f.line(m.start())
    for c in sorted(want - set(cases)):
        rep.err(path, fline, 'tm_attr_ipv6() lacks %s, 16 bytes exactly in '
                'the spec (%s:%s)' % (c, rep.rel(spec.path),
                                      spec.line(*spec.attrs_by_c[c]['_path'])))
    for c in sorted(set(cases) - want):
        rep.err(path, cases[c], 'tm_attr_ipv6(): %s is not a binary of '
                'exact-len 16 in the spec' % c)


def check_hints(spec):
    for a in spec.attrs_by_c.values():
        if a['type'] == 'binary' and 'display-hint' not in a:
            spec.err(a['_path'], 'binary attribute %s has no display-hint '
                     '(ipv4/ipv6 for an address, hex otherwise)' % a['name'])


# -----------------------------------------------------------------------------

SYMS = Symbols()


def main():
    top_default = os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))
    ap = argparse.ArgumentParser(description='Check the uapi header, the '
                                 'kernel policies and tmctl against the '
                                 'netlink YAML spec.')
    ap.add_argument('--top', default=top_default,
                    help='tree the other paths default to')
    ap.add_argument('--spec', help='the spec (TOP/Documentation/netlink/'
                    'specs/tuplemerge.yaml)')
    ap.add_argument('--uapi', help='the uapi header (TOP/include/uapi/'
                    'linux/tuplemerge.h)')
    ap.add_argument('--kmod', help='the module\'s sources (TOP/kmod)')
    ap.add_argument('--tmctl', help='tmctl\'s netlink file '
                    '(TOP/tools/tmctl/nl.c)')
    ap.add_argument('--ksrc', help='Linux 6.12 sources with '
                    'Documentation/netlink/ (TOP/build/linux-6.12)')
    ap.add_argument('--schema', help='the JSON schema itself (default: '
                    'KSRC/Documentation/netlink/PROTOCOL.yaml)')
    args = ap.parse_args()
    top = os.path.abspath(args.top)
    spec_path = args.spec or os.path.join(top, 'Documentation', 'netlink',
                                          'specs', 'tuplemerge.yaml')
    uapi_path = args.uapi or os.path.join(top, 'include', 'uapi', 'linux',
                                          'tuplemerge.h')
    kdir = args.kmod or os.path.join(top, 'kmod')
    tmctl = args.tmctl or os.path.join(top, 'tools', 'tmctl', 'nl.c')
    ksrc = args.ksrc or os.path.join(top, 'build', 'linux-6.12')

    rep = Report(top)
    try:
        spec = Spec(spec_path, rep)
        proto = (spec.y or {}).get('protocol', 'genetlink') \
            if isinstance(spec.y, dict) else 'genetlink'
        schema = args.schema or os.path.join(ksrc, 'Documentation',
                                             'netlink', proto + '.yaml')
        if check_schema(spec, schema, rep):
            for e in rep.errors:
                print(e)
            print('spec-check: %d errors (schema: the cross-checks need a '
                  'valid spec)' % len(rep.errors))
            return 1
        spec.build()
        check_hints(spec)
        uapi = Uapi(uapi_path, SYMS)
        check_uapi(spec, uapi, rep)
        kernel = Kernel(kdir, rep)
        npol = check_kernel(spec, kernel, rep)
        check_tmctl(spec, tmctl, rep)
    except InputError as e:
        for x in rep.errors:
            print(x)
        print('spec-check: %s' % e, file=sys.stderr)
        return 2
    for e in rep.errors:
        print(e)
    print('spec-check: %d attributes, %d commands, %d policies checked, '
          '%d errors' % (spec.nattrs, len(spec.ops), npol or 0,
                         len(rep.errors)))
    return 1 if rep.errors else 0


if __name__ == '__main__':
    sys.exit(main())
