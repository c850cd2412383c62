/**
 * Python source: the safetensors format read and written with torch alone (Debian's
 * python3-torch has no `safetensors` package): the 8-byte little-endian header length, the
 * JSON header, then each tensor's bytes through torch.frombuffer. Writing pads the header
 * with spaces to a multiple of 8, as src/io/safetensors.ts does, and replaces the file
 * atomically (a temporary file beside it, then os.replace).
 */
export const SAFETENSORS_PY = `DTYPES = {'F32': torch.float32, 'F64': torch.float64, 'F16': torch.float16, 'BF16': torch.bfloat16,
          'I64': torch.int64, 'I32': torch.int32, 'I16': torch.int16, 'I8': torch.int8, 'U8': torch.uint8, 'BOOL': torch.bool}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


def read_safetensors(path):
    """The tensors of a safetensors file by name, and its __metadata__."""
    with open(path, 'rb') as f:
        raw = f.read()
    (n,) = struct.unpack('<Q', raw[:8])
    if n > len(raw) - 8:
        raise ValueError(f'{path}: header length {n} goes beyond the end of the file')
    header = json.loads(raw[8:8 + n])
    metadata = header.pop('__metadata__', {})
    tensors = {}
    for name, e in header.items():
        begin, end = e['data_offsets']
        dtype = DTYPES[e['dtype']]
        data = bytearray(raw[8 + n + begin:8 + n + end])
        t = torch.frombuffer(data, dtype=dtype) if data else torch.zeros(0, dtype=dtype)
        tensors[name] = t.reshape(e['shape'])
    return tensors, metadata


def write_safetensors(path, tensors, metadata=None):
    """Writes tensors (name → tensor, in that order) and string metadata; atomic."""
    header, blobs, at = {}, [], 0
    if metadata:
        header['__metadata__'] = {k: str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        b = t.detach().cpu().contiguous().numpy().tobytes()
        header[name] = {'dtype': DTYPE_NAMES[t.dtype], 'shape': list(t.shape), 'data_offsets': [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header).encode('utf-8')
    text += b' ' * (-len(text) % 8)
    tmp = f'{path}.{os.getpid()}.tmp'
    with open(tmp, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)`;
