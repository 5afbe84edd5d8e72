#pragma once
/// Kernel measurement files (data/calibration/kernels-2026.yaml; format in its header): a YAML
/// list of published kernel-level measurements, each with id, source, kind, gpu, dtype, shape,
/// measured and notes, which `validate` and `calibrate` read beside measured runs.
#include <string>
#include <vector>

#include "flopcast/calibrate/kernel_measurement.hpp"
#include "flopcast/io/catalog.hpp"

namespace flopcast::io {

/// True when the YAML list's entries are kernel measurements (they carry `shape:` and no
/// `model:`).
bool is_kernel_file(const std::string& text);

/// Parses a kernel measurement file. A bad entry (unknown kind, dtype or GPU, a key the format
/// does not have, a figure that is not a positive number) is reported at its file:line with the
/// key and a did-you-mean, and skipped; the other entries load.
std::vector<calibrate::KernelMeasurement> parse_kernel_file(const std::string& text, const std::string& file,
                                                            const Catalog& catalog, scenario::Diagnostics& diags);

}  // namespace flopcast::io
