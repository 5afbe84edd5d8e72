#include "flopcast/app/scenario_form.hpp"

namespace flopcast::app {

io::ScenarioForm default_form(const io::Catalog& catalog) {
  io::ScenarioForm f;
  f.name = "Llama 3 8B on 64 H800";
  const workload::ModelSpec* m = catalog.find_model("llama3-8b");
  if (!m && !catalog.models.empty()) m = &catalog.models.front();
  if (m) {
    f.model_preset = m->name;
    io::set_model_shape(f, *m);
  }
  const hardware::GpuSpec* g = catalog.find_gpu("H800");
  if (!g && !catalog.gpus.empty()) g = &catalog.gpus.front();
  if (g) f.gpu = g->name;
  f.gpus = 64;
  f.gpus_per_node = 8;
  f.tp = 2;
  f.dp = 32;
  f.sequence_parallel = true;
  f.zero = 1;
  f.micro_batch = 1;
  f.global_batch = 512;
  f.recompute = "selective";
  f.schedule = "1f1b";
  f.precision = "bf16";
  f.tokens = "1T";
  return f;
}

}  // namespace flopcast::app
