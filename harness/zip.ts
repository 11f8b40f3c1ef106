// The entries of a zip archive (a .vsix), read from its central directory: names and sizes.
// Enough for the archives vsce writes (no zip64, no multi-disk).

export interface ZipEntry {
  name: string;
  compressedSize: number;
  size: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;

export function zipEntries(archive: Buffer): ZipEntry[] {
  // The end record is in the last 64 KiB (a comment may follow it).
  let end = -1;
  for (let at = archive.length - 22; at >= Math.max(0, archive.length - 65_557); at--) {
    if (archive.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive: no end of central directory record');
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new Error(`zip central directory broken at entry ${i}`);
    const compressedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    entries.push({ name: archive.toString('utf8', at + 46, at + 46 + nameLength), compressedSize, size });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
