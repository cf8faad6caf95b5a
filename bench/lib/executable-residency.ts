// Which parts of a process's executable are in memory: its mappings from /proc/<pid>/maps, which of
// their pages are resident from /proc/<pid>/pagemap (bit 63 of each page's entry; readable for a
// process of the same user), and what each page holds from the executable's section headers
// (`readelf -S`) and symbol table (`nm -S -C`). Each resident page is counted for the symbol at its
// start, grouped by family; pages in no named symbol are counted apart. For Node this shows how much of
// an idle process's file-backed RSS is V8's compilers, its runtime, OpenSSL or embedded data.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';

const PAGE = 4096;

export interface ResidencyGroup {
  name: string;
  bytes: number;
}

export interface ExecutableResidency {
  executable: string;
  /** Resident bytes of the executable's mappings, whatever they hold. */
  totalBytes: number;
  /** By section (`.text`, `.rodata`, ...), each by symbol family, largest first. */
  sections: Array<{ section: string; bytes: number; groups: ResidencyGroup[] }>;
}

/** Families of symbols, first match wins; C++ names demangled. */
const FAMILIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(void )?v8::internal::compiler::/, 'V8 TurboFan (optimizing compiler)'],
  [/^(void )?v8::internal::maglev::/, 'V8 Maglev (mid-tier compiler)'],
  [/^(void )?v8::internal::wasm::/, 'V8 WebAssembly'],
  [/^(void )?(v8|v8_inspector|cppgc|heap)::|^Builtins_|^v8_/, 'V8, other'],
  [/^icudt/, 'ICU data'],
  [/^(void )?(icu_\d+|U_ICU_NAMESPACE)::|^u(text|loc|res|data|case|norm|str|cnv)_|^(ucol|ubrk)_/, 'ICU code'],
  [
    /^(ossl_|OPENSSL_|EVP_|SSL_|ssl_|X509|ASN1_|BN_|EC_|RSA_|ecp_|aesni_|sha\d+_|CRYPTO_|ERR_|BIO_|PEM_|tls_|dtls_)/i,
    'OpenSSL',
  ],
  [/^(void )?node::|^napi_|^uv_/, 'Node and libuv'],
  [/^(void )?simdjson::|^(void )?simdutf::|^(void )?ada::/, 'simdjson, simdutf, ada'],
  [
    /^(nghttp2|llhttp|brotli|Brotli|k(Static|Brotli)|zstd|ZSTD|inflate|deflate|crc32)/i,
    'HTTP/2, HTTP/1, compression',
  ],
  [/^(void )?std::|^__/, 'C++ library'],
];

function family(symbol: string): string {
  for (const [pattern, name] of FAMILIES) if (pattern.test(symbol)) return name;
  return 'other named';
}

interface Section {
  name: string;
  address: bigint;
  offset: bigint;
  size: bigint;
}

function sections(executable: string): Section[] {
  const out = execFileSync('readelf', ['-S', '-W', executable], { encoding: 'utf8' });
  const found: Section[] = [];
  for (const line of out.split('\n')) {
    const m = /\]\s+(\.\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/.exec(line);
    if (m)
      found.push({
        name: m[1] ?? '',
        address: BigInt(`0x${m[2]}`),
        offset: BigInt(`0x${m[3]}`),
        size: BigInt(`0x${m[4]}`),
      });
  }
  return found.filter((s) => s.size > 0n && s.address > 0n);
}

function symbols(executable: string): Array<{ address: number; end: number; name: string }> {
  const out = execFileSync('nm', ['-S', '-C', executable], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const list: Array<{ address: number; end: number; name: string }> = [];
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) \S (.*)$/.exec(line);
    if (m === null) continue;
    const address = Number.parseInt(m[1] ?? '0', 16);
    list.push({ address, end: address + Number.parseInt(m[2] ?? '0', 16), name: m[3] ?? '' });
  }
  return list.sort((a, b) => a.address - b.address);
}

/** The file offsets of the executable's resident pages. */
function residentOffsets(pid: number, executable: string): bigint[] {
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n');
  const fd = openSync(`/proc/${pid}/pagemap`, 'r');
  const offsets: bigint[] = [];
  try {
    for (const line of maps) {
      const [range = '', , offset = '0', , , path] = line.split(/\s+/);
      if (path !== executable) continue;
      const [start = 0n, end = 0n] = range.split('-').map((x) => BigInt(`0x${x}`));
      const pages = Number((end - start) / BigInt(PAGE));
      const entries = Buffer.alloc(pages * 8);
      readSync(fd, entries, 0, entries.length, Number((start / BigInt(PAGE)) * 8n));
      for (let i = 0; i < pages; i++)
        if (entries.readBigUInt64LE(i * 8) >> 63n) offsets.push(BigInt(`0x${offset}`) + BigInt(i * PAGE));
    }
  } finally {
    closeSync(fd);
  }
  return offsets;
}

export function executableResidency(pid: number): ExecutableResidency {
  const executable = readlinkSync(`/proc/${pid}/exe`);
  const offsets = residentOffsets(pid, executable);
  const known = sections(executable);
  const table = symbols(executable);
  const bySection = new Map<string, Map<string, number>>();
  for (const offset of offsets) {
    const section = known.find((s) => offset >= s.offset && offset < s.offset + s.size);
    const name = section?.name ?? '(headers and other)';
    const groups = bySection.get(name) ?? new Map<string, number>();
    bySection.set(name, groups);
    let group = '(no named symbol)';
    if (section !== undefined) {
      const address = Number(section.address + (offset - section.offset));
      // The last symbol starting at or before the page's first byte, if the page is inside it.
      let lo = 0;
      let hi = table.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((table[mid]?.address ?? 0) <= address) lo = mid;
        else hi = mid - 1;
      }
      const symbol = table[lo];
      if (symbol !== undefined && symbol.address <= address && address < symbol.end)
        group = family(symbol.name);
    }
    groups.set(group, (groups.get(group) ?? 0) + PAGE);
  }
  const sectionsOut = [...bySection].map(([section, groups]) => ({
    section,
    bytes: [...groups.values()].reduce((a, b) => a + b, 0),
    groups: [...groups].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes),
  }));
  return {
    executable,
    totalBytes: offsets.length * PAGE,
    sections: sectionsOut.sort((a, b) => b.bytes - a.bytes),
  };
}
