/**
 * np misc ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here).
 */
const INDEX = 'int64 index output: WebGPU has no 64-bit integers';
const TINY = 'a handful of elements computed once per call: no gain from a GPU dispatch';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_tril_indices: INDEX,
  _npi_diag_indices_from: INDEX,
  _unravel_index: `${INDEX} (int64 indices in, coordinates out, with a bounds check before writing)`,
  _npi_fill_diagonal: 'strided scalar writes of a few elements into a copy; runs on cpu(0)',
  _npi_hanning: TINY,
  _npi_hamming: TINY,
  _npi_blackman: TINY,
  _npi_polyval: 'Horner loop over the coefficients; not yet written in WGSL',
  _npi_backward_polyval: 'reduction over x for each coefficient; not yet written in WGSL',
  _npi_ediff1d: 'a 1-D difference with concatenated ends; not yet written in WGSL',
  _npi_backward_ediff1d: 'a 1-D difference with sliced ends; not yet written in WGSL',
  _npi_interp: 'float64 only (MXNet casts every input to float64); WebGPU has no float64',
};
