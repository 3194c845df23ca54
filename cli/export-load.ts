import type { Options } from 'yargs';
import type { Io } from './main.js';
export const exportLoadOptions: Record<string, Options> = {};
export async function exportLoadCommand(_args: Record<string, unknown>, _io: Io): Promise<number> {
  return 2;
}
