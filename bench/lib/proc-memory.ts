/**
 * A process's memory as the kernel counts it (/proc/PID/status, Linux): anonymous pages (the JS
 * heaps, malloc, buffers: what a leak or a cache grows) apart from file-backed ones (mapped
 * files such as LMDB, which the kernel can drop and reread) and shared memory.
 */
import { readFileSync } from 'node:fs';

export interface ProcMemory { rssMb: number; anonMb: number; fileMb: number; shmemMb: number }

export function procMemory(pid: number): ProcMemory | null {
  let text: string;
  try { text = readFileSync(`/proc/${pid}/status`, 'utf8'); } catch { return null; }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, anonMb: kb('RssAnon') / 1024, fileMb: kb('RssFile') / 1024, shmemMb: kb('RssShmem') / 1024 };
}
