"""Every size threshold the CPU kernels use, in one place.

Each was chosen by timing the kernel on both sides of the threshold on the 2-vCPU
machine that bench/ runs on (NumPy 2.x with its bundled OpenBLAS); the line above each
says what was measured. Thresholds that only decide how work is split never change a
result: slicing and chunking keep every sum in the same order whatever the thread count.
A faster or wider machine may prefer other values; change them here and re-run bench/.
"""

# parallel.parallel_for: below this many values touched, a pass is cheaper than waking
# a second thread (about 5-20 microseconds).
MIN_PARALLEL_VALUES = 1 << 16

# transpose: below this many elements a matrix transposes as fast in NumPy as through
# OpenBLAS's omatcopy.
MIN_TRANSPOSE_MATRIX = 32768
# transpose: below this many elements, a transpose that fits in cache is over before a
# second thread helps.
MIN_PARALLEL_TRANSPOSE = 1 << 20

# optim.for_slices: elementwise optimizer updates run on slices of about this many
# values (Adam over 10 M parameters: 1.5x -> 0.92x torch's time with 256k slices).
OPTIMIZER_SLICE = 1 << 18

# nn.functional.conv: im2col columns larger than this are recomputed in backward rather
# than kept from forward (the memory outweighs one more im2col pass).
CACHE_COLUMNS_BYTES = 32 * 1024 * 1024
# nn.functional.conv: thin weight-gradient products (M <= 16 rows, or M <= 32 with
# M N < 1024) over more than 4 slices of this length run 1.5-3.5x faster cut into a
# stack of slices whose partial products are summed.
THIN_PRODUCT_SLICE = 1024

# nn.functional.winograd: images per chunk, enough for about this many transformed
# values (stays in a 2 MiB cache), and at least this many chunks (one per thread on a
# two-core machine; depends on shapes only, never on the thread count).
WINOGRAD_CHUNK_VALUES = 1 << 20
WINOGRAD_MIN_CHUNKS = 2

# embedding.add_rows: elements added per np.add.at call when summing rows (keeps the index
# arrays of an embedding's gradient small).
ADD_ROWS_BATCH = 1 << 20

# _cpu/numba/rnn: a recurrent layer whose per-step gate product has at most this many
# multiply-adds (weight size x batch) runs its whole time loop as one numba kernel, with
# the products as loops; larger ones call BLAS and a fused kernel per step. Measured on
# float32 sequences of 35 steps: at 2k multiply-adds the whole loop is 2.5-3.5x faster,
# from 10k (Elman RNN) to 40k (LSTM) the two are even, at 160k the per-step BLAS calls
# are 1.3-1.6x faster.
RNN_FUSED_LOOP_WORK = 1 << 14

