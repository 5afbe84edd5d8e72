#include "flopcast/quote/quote_text.hpp"

#include <array>
#include <regex>
#include <utility>
#include <vector>

#include "flopcast/units/assert.hpp"
#include "flopcast/units/text.hpp"

namespace flopcast::quote {
namespace {

struct Entry {
  std::string_view key, en, zh;
};

// clang-format off
/// Every phrase and sentence template of a quote. English is what the quote has always said;
/// templates take fmt named arguments. Sorted by key (checked on first use).
constexpr std::array kTable{
  Entry{"a.band", "Requirements are checked at {pct} with the step time at x{factor} of the prediction ({which}): {wall} of calendar time.", "各项要求按 {pct}、步时为预测值 ×{factor} 核对（{which}）：日历时间 {wall}。"},
  Entry{"a.band.median", "the median of the model band", "取模型区间的中位"},
  Entry{"a.band.slow", "the slow end of the model band, its 80% interval", "取模型区间（80% 区间）的慢端"},
  Entry{"a.billing", "Billing: a month is 720 h; a started unit is billed whole unless a plan is prorated; each line is rounded half away from zero to the cent; deposits are refundable and not in the totals.", "计费规则：一个月按 720 小时计；除按比例计费的方案外，已开始的计费单位按整单位计费；每行金额四舍五入到分；押金可退还，不计入合计。"},
  Entry{"a.ckpt.async", "asynchronous", "异步"},
  Entry{"a.ckpt.many", "Checkpoints: {mode}, every {interval} ({steps} steps), {size} GB each{per_param}, {write} s to write. {suggest}", "检查点：{mode}，每 {interval}一次（{steps} 步），每个 {size} GB{per_param}，写入耗时 {write} 秒。{suggest}"},
  Entry{"a.ckpt.one", "Checkpoints: {mode}, every {interval} ({steps} step), {size} GB each{per_param}, {write} s to write. {suggest}", "检查点：{mode}，每 {interval}一次（{steps} 步），每个 {size} GB{per_param}，写入耗时 {write} 秒。{suggest}"},
  Entry{"a.ckpt.optimizer", ": bf16 weights, fp32 master weights, Adam m and v", "：bf16 权重、fp32 主权重、Adam 的 m 与 v"},
  Entry{"a.ckpt.per_param", " ({bpp} B per parameter{optimizer})", "（每参数 {bpp} B{optimizer}）"},
  Entry{"a.ckpt.suggest", "Young/Daly suggests every {suggested}.", "按 Young/Daly 公式建议每 {suggested}一次。"},
  Entry{"a.ckpt.suggest.write", "Suggested: every {suggested}, the time a write takes (Young/Daly gives {daly}, but an asynchronous checkpoint protects nothing until its write ends).", "建议每 {suggested}一次，即写入一次所需的时间（Young/Daly 公式给出 {daly}，但异步检查点在写入完成前不起保护作用）。"},
  Entry{"a.ckpt.sync", "synchronous", "同步"},
  Entry{"a.debug", "Calendar time includes {time} of CPU-only debugging before the GPUs are attached (billed as CPU time).", "日历时间包含挂载 GPU 前 {time} 的纯 CPU 调试（按 CPU 时间计费）。"},
  Entry{"a.duration", "Duration: Monte Carlo over {trials} seeded runs (seed {seed}); P50 and P90 are nearest-rank percentiles. Paid GPU time runs from GPUs ready to the last step, restarts included.", "工期：以 {trials} 次带随机种子的蒙特卡洛模拟估算（种子 {seed}）；P50 与 P90 为最近秩百分位数。计费 GPU 时间自 GPU 就绪起至最后一步止，含重启时间。"},
  Entry{"a.energy", "Energy (information only, included in rental prices): {mwh} MWh at PUE {pue}, about {cost} of electricity.", "能耗（仅供参考，已含在租用价格中）：{mwh} MWh，PUE {pue}，电费约 {cost}。"},
  Entry{"a.failures", "Failures: {rate} per GPU-hour{source}{mtbf}; each costs a restart of {restart} and the work since the last checkpoint.", "故障：每 GPU 小时 {rate} 次{source}{mtbf}；每次故障需重启 {restart}，并损失自上次检查点以来的工作。"},
  Entry{"a.failures.llama3", " (Llama 3 405B pre-training, arXiv 2407.21783 Table 5: 419 interruptions in 16,384 GPUs x 1,296 h)", "（Llama 3 405B 预训练，arXiv 2407.21783 表 5：16,384 块 GPU 运行 1,296 小时中断 419 次）"},
  Entry{"a.failures.mtbf", "; mean time between failures of this job {hours} h", "；本任务平均故障间隔 {hours} 小时"},
  Entry{"a.mfu", "MFU {mfu} and step time {step} s are simulated by flopcast from the model, cluster and parallel plan (not a vendor figure). MFU counts model FLOPs with attention over every key (not halved for the causal mask) and no recompute, against the GPU's dense peak.", "MFU {mfu} 与步时 {step} 秒由 flopcast 根据模型、集群与并行方案模拟得出（并非厂商数据）。MFU 按模型 FLOPs 计：注意力计全部键（不因因果掩码减半），不计重计算，以 GPU 稠密峰值为分母。"},
  Entry{"a.prices", "Prices: the price list of {provider}{dated}, as stated for the plans in this quote.", "价格：采用{provider}的价目表{dated}，以本报价所列方案的价格为准。"},
  Entry{"a.prices.dated", ", dated {date}", "（{date}）"},
  Entry{"a.provider", "the provider", "服务商"},
  Entry{"a.provisioning", "Calendar time includes {time} of provisioning before the GPUs are ready (not billed).", "日历时间包含 GPU 就绪前 {time} 的资源准备（不计费）。"},
  Entry{"a.spot", "Spot capacity ({plan}): interrupted {rate} times per node-hour of {gpus} GPUs{source}; the failure rate above includes these {per_gpu} per GPU-hour. Each interruption costs {restart} to get capacity back and the work since the last checkpoint. Simulated on average {failures} failures and interruptions per run, {lost} of lost work and {restarts} of restarts.", "竞价（spot）资源（{plan}）：每 {gpus} 块 GPU 的节点每小时被中断 {rate} 次{source}；上述故障率已包含折合每 GPU 小时 {per_gpu} 次的中断。每次中断需等待 {restart}以重新获得资源，并损失自上次检查点以来的工作。模拟结果：每次运行平均 {failures} 次故障与中断，损失工作 {lost}，重启耗时 {restarts}。"},
  Entry{"alt.col.cost", "Total before tax", "税前合计"},
  Entry{"alt.col.gpu", "GPU type", "GPU 型号"},
  Entry{"alt.col.met", "Met", "是否满足"},
  Entry{"alt.col.plan", "Its cheapest plan", "该型号最低价方案"},
  Entry{"alt.col.time", "Calendar time", "日历时间"},
  Entry{"alt.heading", "Other GPU types considered", "其他候选 GPU 型号"},
  Entry{"alt.met", "yes", "满足"},
  Entry{"alt.miss.both", "no: misses the deadline and the budget", "否：超出截止日期与预算"},
  Entry{"alt.miss.budget", "no: over the budget", "否：超出预算"},
  Entry{"alt.miss.deadline", "no: misses the deadline", "否：超出截止日期"},
  Entry{"alt.note", "Each other GPU type's cheapest simulated plan that meets the requirements, else its closest, at {pct} with the step at its generation's model band ({which}), as the requirements are checked; the recommended plan is the cheapest of all that meet them.", "各其他 GPU 型号中满足要求的最低价模拟方案（若无则为最接近者），按 {pct}、步时取该代 GPU 模型区间的{which}计算，与各项要求的核对方式相同；推荐方案为所有满足要求者中的最低价。"},
  Entry{"alt.which.median", "median", "中位"},
  Entry{"alt.which.slow", "slow end", "慢端"},
  Entry{"band.range", "{low} to {high}", "{low} 至 {high}"},
  Entry{"bill.col.amount", "Amount ({currency})", "金额"},
  Entry{"bill.col.item", "Item", "项目"},
  Entry{"bill.col.note", "Note", "备注"},
  Entry{"bill.col.quantity", "Quantity", "数量"},
  Entry{"bill.col.unit_price", "Unit price", "单价"},
  Entry{"bill.deposit", "Deposit (refundable, not in the total)", "押金（可退还，不计入合计）"},
  Entry{"bill.deposit_due", " Refundable deposit due upfront: {deposit}.", "需预付可退还押金 {deposit}。"},
  Entry{"bill.summary", "{plan}: {p50} before tax for the expected (P50) run, {p90} if it takes the P90 time.", "{plan}：按预期（P50）运行，税前 {p50}；若按 P90 时间运行，税前 {p90}。"},
  Entry{"bill.summary.band", " Over the model band at {pct}: {low} to {high}.", "模型区间内（{pct}）：税前 {low} 至 {high}。"},
  Entry{"bill.tax", "{tax} {rate}%", "{tax} {rate}%"},
  Entry{"bill.tax_note", "on the total before tax", "按税前合计计征"},
  Entry{"bill.total", "Total before tax", "税前合计"},
  Entry{"bill.total_p50", "Total before tax (P50)", "税前合计（P50）"},
  Entry{"bill.total_tax", "Total including {tax}", "含{tax}合计"},
  Entry{"bill.total_tax_p50", "Total including {tax} (P50)", "含{tax}合计（P50）"},
  Entry{"bill.totals.band", "Model band at {pct} ({currency})", "模型区间（{pct}）"},
  Entry{"bill.totals.p50", "P50 ({currency})", "P50"},
  Entry{"bill.totals.p90", "P90 ({currency})", "P90"},
  Entry{"claims.heading", "Claimed vs simulated", "宣称值与模拟值"},
  Entry{"cmp.another", " [another provider, for comparison]", "［其他服务商，仅供比较］"},
  Entry{"cmp.col.deposit", "Deposit ({currency})", "押金"},
  Entry{"cmp.col.p50", "Total at P50 ({currency})", "P50 合计"},
  Entry{"cmp.col.p90", "Total at P90 ({currency})", "P90 合计"},
  Entry{"cmp.col.plan", "Plan", "方案"},
  Entry{"cmp.heading", "Other plans", "其他方案"},
  Entry{"cmp.heading.compare", "Plan comparison, with other providers' prices", "方案比较（含其他服务商价格）"},
  Entry{"cmp.note", "Totals before tax. The recommended plan is the lowest total at the expected (P50) run among the plans offered in this quote; deposits are refundable and not counted.", "以上均为税前合计。推荐方案为本报价所列方案中按预期（P50）运行合计最低者；押金可退还，不计入合计。"},
  Entry{"cmp.recommended", " (recommended)", "（推荐）"},
  Entry{"dur.band", "Model band at {pct}", "模型区间（{pct}）"},
  Entry{"dur.band_note", "P50 and P90 spread the run over simulated failures. The model band is the {pct} run again with the step time at the fast and slow ends of the model's 80% interval (x{low} and x{high}).", "P50 与 P90 为模拟故障下的工期分布。模型区间为步时取模型 80% 区间快端与慢端（×{low} 与 ×{high}）时重新模拟的 {pct} 结果。"},
  Entry{"dur.calendar", "Calendar time", "日历时间"},
  Entry{"dur.gpu_hours", "GPU-hours", "GPU 小时数"},
  Entry{"dur.gpu_hours.value", "{hours} GPU-h", "{hours} GPU 小时"},
  Entry{"dur.heading", "Expected duration", "预计工期"},
  Entry{"dur.paid", "Paid GPU time", "计费 GPU 时间"},
  Entry{"dur.summary", "Pure training time {useful}; goodput {goodput} (useful / paid time); on average {failures} failures, {lost} of lost work and {restarts} of restarts.", "纯训练时间 {useful}；有效训练占比 {goodput}（有效时间 / 计费时间）；平均故障 {failures} 次，损失工作 {lost}，重启耗时 {restarts}。"},
  Entry{"foot", "Quote {id} is derived from its inputs: the same job, prices and date give the same quote.", "报价单 {id} 由其输入确定：相同的任务、价格与日期生成相同的报价单。"},
  Entry{"head.customer", "Customer", "客户"},
  Entry{"head.date", "Date", "日期"},
  Entry{"head.issuer", "Issued by", "服务商"},
  Entry{"head.quote", "Quote", "报价单编号"},
  Entry{"head.valid_until", "Valid until", "有效期至"},
  Entry{"heading.assumptions", "Assumptions", "假设"},
  Entry{"heading.recommended", "Recommended plan", "推荐方案"},
  Entry{"job.cluster.many", "Cluster: {gpus} x {gpu} ({nodes} nodes of {per_node} GPUs)", "集群：{gpus} × {gpu}（{nodes} 个节点，每节点 {per_node} 块 GPU）"},
  Entry{"job.cluster.one", "Cluster: {gpus} x {gpu} ({nodes} node of {per_node} GPUs)", "集群：{gpus} × {gpu}（{nodes} 个节点，每节点 {per_node} 块 GPU）"},
  Entry{"job.frameworks", "Runs on: {frameworks}", "训练框架：{frameworks}"},
  Entry{"job.frameworks.none", "Runs on: none of {frameworks} runs this parallel plan as stated; the estimate assumes a framework that runs it as simulated (the customer's own).", "训练框架：{frameworks} 均不能按所述方式运行该并行方案；本估算假定由能按模拟方式运行它的框架（客户自有框架）执行。"},
  Entry{"job.heading", "Your training job", "训练任务"},
  Entry{"job.model", "Model: {model}{params}", "模型：{model}{params}"},
  Entry{"job.model.custom", "custom model", "自定义模型"},
  Entry{"job.params", " ({count} parameters)", "（{count} 参数）"},
  Entry{"job.plan", "Parallel plan: {plan}", "并行方案：{plan}"},
  Entry{"job.shape", "Shape: {layers} layers, hidden size {hidden}, {heads} attention heads ({kv} key/value), sequence {seq} tokens{moe}", "结构：{layers} 层，隐藏维度 {hidden}，{heads} 个注意力头（{kv} 个键值头），序列长度 {seq} 词元{moe}"},
  Entry{"job.shape.moe", "; mixture of experts: {experts} experts, {per_token} per token{shared}, {active} parameters active per token", "；混合专家：{experts} 个专家，每词元使用 {per_token} 个{shared}，每词元激活 {active} 参数"},
  Entry{"job.shape.shared", " and {n} shared", "，另有 {n} 个共享专家"},
  Entry{"job.step", "Step time {step} s x {steps} steps; MFU {mfu} (simulated; model FLOPs, full attention)", "步时 {step} 秒 × {steps} 步；MFU {mfu}（模拟值；模型 FLOPs，注意力计全部键）"},
  Entry{"job.tokens", "Training tokens: {count}", "训练词元数：{count}"},
  Entry{"miss.item", "{what}: asked {asked}, the plan gives {plan}", "{what}：要求 {asked}，本方案为 {plan}"},
  Entry{"miss.separator", "; ", "；"},
  Entry{"miss.text", "This plan does not meet every requirement. {missed}.", "本方案未满足全部要求。{missed}。"},
  Entry{"no_plan", "No plan of this price list can be billed for this job.", "本价目表中没有可为此任务计费的方案。"},
  Entry{"req.col.asked", "Asked", "要求"},
  Entry{"req.col.met", "Met", "是否满足"},
  Entry{"req.col.plan", "This plan", "本方案"},
  Entry{"req.col.what", "Requirement", "要求项"},
  Entry{"req.heading", "Your requirements", "贵方要求"},
  Entry{"req.met", "yes", "满足"},
  Entry{"req.not_met", "NO", "未满足"},
  Entry{"sig.customer", "For {name}", "甲方（客户）：{name}"},
  Entry{"sig.customer.default", "the customer", "客户"},
  Entry{"sig.date", "Date", "日期"},
  Entry{"sig.heading", "Acceptance", "签署确认"},
  Entry{"sig.name", "Name", "姓名"},
  Entry{"sig.provider", "For {name}", "乙方（服务商）：{name}"},
  Entry{"sig.provider.default", "the provider", "服务商"},
  Entry{"sig.seal", "", "盖章"},
  Entry{"sig.signature", "Signature", "签字"},
  Entry{"sig.title", "Title", "职务"},
  Entry{"terms.estimate", "The amounts are simulated estimates for the job described: the bill follows actual use at the prices above.", "上述金额为针对所述任务的模拟估算：实际账单按上述价格与实际用量结算。"},
  Entry{"terms.heading", "Terms", "条款"},
  Entry{"terms.no_tax", "Tax: the prices exclude taxes, which are added as the law of the place of supply requires.", "税费：价格不含税，税费按服务提供地的法律规定另行加收。"},
  Entry{"terms.payment", "Payment: {terms}.", "付款方式：{terms}。"},
  Entry{"terms.payment.default", "to be agreed in the contract", "在合同中约定"},
  Entry{"terms.tax", "Tax: {tax} at {rate}%{basis} ({source}).", "税费：{tax}，税率 {rate}%，以税前合计为计税依据，另行加收（{source}）。"},
  Entry{"terms.tax.basis", ". {basis}", ""},
  Entry{"terms.validity", "Validity: this quote is valid until {date}; prices and availability are confirmed on signature.", "有效期：本报价有效期至 {date}；价格与资源可用性以签署时确认为准。"},
  Entry{"title", "Training quote {id}", "训练报价单 {id}"},
};
// clang-format on

constexpr bool sorted() {
  for (std::size_t i = 1; i < kTable.size(); ++i)
    if (!(kTable[i - 1].key < kTable[i].key)) return false;
  return true;
}
static_assert(sorted(), "kTable keys must be sorted and unique");

/// Rewrites applied in order to a phrase in Chinese: known whole forms first, then figures
/// with their units. ECMAScript regular expressions over UTF-8 bytes (the patterns are ASCII).
struct Rule {
  const char* pattern;
  const char* zh;
};

// clang-format off
constexpr std::array kWhole{
  Rule{"^Training tokens$", "训练词元数"},
  Rule{"^Deadline$", "截止日期"},
  Rule{"^Budget \\(before tax\\)$", "预算（税前）"},
  Rule{"^no plan can be billed$", "没有可计费的方案"},
  Rule{"^VAT$", "增值税"},
  Rule{"^included$", "已含"},
  Rule{"^once$", "一次性"},
  Rule{"^GPU-hour$", "GPU·小时"},
  Rule{"^GPU-day$", "GPU·天"},
  Rule{"^GPU-week$", "GPU·周"},
  Rule{"^GPU-month$", "GPU·月"},
  Rule{"^node-hour$", "节点·小时"},
  Rule{"^node-day$", "节点·天"},
  Rule{"^node-week$", "节点·周"},
  Rule{"^node-month$", "节点·月"},
  Rule{"^GB-month$", "GB·月"},
  Rule{"^of which idle during restarts$", "其中：重启期间闲置"},
  Rule{"^of which billed but unused \\(rounding up, minimum term\\)$", "其中：已计费但未使用（向上取整、最短租期）"},
  Rule{"^included in GPU time$", "已含在 GPU 时间中"},
  Rule{"^New-user credit$", "新用户抵扣额"},
  Rule{"^capped at the subtotal$", "以小计为上限"},
  Rule{"^Step time from flopcast's step model, calibrated on published training runs\\.$", "步时由 flopcast 的步时模型给出，该模型以公开发表的训练记录校准。"},
  Rule{"^Reliability: flopcast's defaults \\(the scenario gives no reliability block\\)\\.$", "可靠性：采用 flopcast 的默认值（场景未给出可靠性设置）。"},
  Rule{"^Fine-tuning: (LoRA|QLoRA) rank ([0-9]+) on (.+) \\(([0-9.]+)M adapter parameters\\), frozen (bf16|fp8|nf4|nvfp4) base weights, dropout ([0-9.]+) on the adapters' inputs; only the adapters have gradients, optimizer state and checkpoints\\. MFU counts as model FLOPs: .*$", "微调：$1，秩 $2，适配器位于 $3（$4M 个适配器参数），基座权重冻结（$5），适配器输入的 dropout 为 $6；只有适配器有梯度、优化器状态和检查点。MFU 的模型 FLOPs 口径：冻结权重只计前向与输入梯度（每参数每词元 4 FLOPs，而非 6），适配器计前向、输入梯度与权重梯度（每个适配器参数 6 FLOPs），注意力计前向与反向，不计重计算。"},
  Rule{"^Fine-tuning: (LoRA|QLoRA) rank ([0-9]+) on (.+) \\(([0-9.]+)M adapter parameters\\), frozen (bf16|fp8|nf4|nvfp4) base weights; only the adapters have gradients, optimizer state and checkpoints\\. MFU counts as model FLOPs: .*$", "微调：$1，秩 $2，适配器位于 $3（$4M 个适配器参数），基座权重冻结（$5）；只有适配器有梯度、优化器状态和检查点。MFU 的模型 FLOPs 口径：冻结权重只计前向与输入梯度（每参数每词元 4 FLOPs，而非 6），适配器计前向、输入梯度与权重梯度（每个适配器参数 6 FLOPs），注意力计前向与反向，不计重计算。"},
  Rule{"^Model band: the step time has an 80% interval of (.+) to (.+) \\(x([0-9.]+) to x([0-9.]+); cross-validated on (.*)\\)\\.$", "模型区间：步时的 80% 区间为 $1 至 $2（×$3 至 ×$4；交叉验证：$5）。"},
  Rule{"^GPU time, (.*) \\(committed\\)$", "GPU 时间，$1（承诺用量部分）"},
  Rule{"^GPU time, (.*) \\(overflow\\)$", "GPU 时间，$1（超出部分）"},
  Rule{"^GPU time, (.*)$", "GPU 时间，$1"},
  Rule{"^Debug phase, (.*)$", "调试阶段，$1"},
  Rule{"^checkpoint storage \\(([0-9.]+) GB\\) is not priced by this plan$", "检查点存储（$1 GB）不在本方案计价范围内"},
  Rule{"^([0-9]+) GPUs take ([0-9]+) nodes of ([0-9]+) in this plan: the last node is partly idle but billed whole$", "$1 块 GPU 占用 $2 个节点（每节点 $3 块）：最后一个节点部分闲置，但按整节点计费"},
  Rule{"^minimum term ([0-9]+) ", "最短租期 $1 "},
  Rule{"^Commitment discount ([0-9.]+) %$", "承诺用量折扣 $1 %"},
  Rule{"^(.*) converted at (.*)$", "$1，按 $2 换算"},
  Rule{"^(.*): claimed ([^ ]+), simulated ([^ ]+): (.*)$", "$1：宣称 $2，模拟 $3：$4"},
};

constexpr std::array kParts{
  Rule{" \\(another currency than the budget's\\)", "（与预算币种不同）"},
  Rule{"([0-9]+) held-out runs of ([0-9]+) source groups", "$2 组来源的 $1 次留出运行"},
  Rule{"([a-z]+), dense: ", "$1 架构、稠密模型："},
  Rule{"([a-z]+), moe: ", "$1 架构、MoE 模型："},
  Rule{"micro-batch ([0-9]+)", "微批次 $1"},
  Rule{"global batch ([0-9]+)", "全局批次 $1"},
  Rule{"recompute selective", "选择性重计算"},
  Rule{"recompute full", "完全重计算"},
  Rule{"(LoRA|QLoRA) rank ([0-9]+)", "$1 秩 $2"},
  Rule{"recompute none", "不重计算"},
  Rule{"MoE dispatch in ([a-z0-9]+) \\(combine bf16\\)", "MoE 分发 $1（合并 bf16）"},
  Rule{"Caishui \\[([0-9]{4})\\] No\\. ([0-9]+) \\(([^)]*)\\)", "$3"},
  Rule{", Annex ([0-9]+), Article ([0-9]+)\\(([0-9]+)\\)", " 附件$1 第$2条第($3)项"},
  Rule{"; MOF/STA/GACC Announcement \\[([0-9]{4})\\] No\\. ([0-9]+)", "；财政部 税务总局 海关总署公告$1年第$2号"},
  Rule{"MOF/STA/GACC Announcement \\[([0-9]{4})\\] No\\. ([0-9]+)", "财政部 税务总局 海关总署公告$1年第$2号"},
  Rule{" at (P50|P90), slow end of the model band \\(x([0-9.]+)\\)", "（$1，模型区间慢端 ×$2）"},
  Rule{" at (P50|P90), median of the model band \\(x([0-9.]+)\\)", "（$1，模型区间中位 ×$2）"},
  Rule{" at (P50|P90)$", "（$1）"},
  Rule{" at (P50|P90)（", "（$1；"},
  Rule{"(-?)([0-9][0-9,]*\\.[0-9]{2}) CNY", "$1¥$2"},
  Rule{"/ GPU-hour", "/ GPU·小时"},
  Rule{"/ GPU-day", "/ GPU·天"},
  Rule{"/ GPU-week", "/ GPU·周"},
  Rule{"/ GPU-month", "/ GPU·月"},
  Rule{"/ node-hour", "/ 节点·小时"},
  Rule{"/ node-day", "/ 节点·天"},
  Rule{"/ node-week", "/ 节点·周"},
  Rule{"/ node-month", "/ 节点·月"},
  Rule{"/ GB-month", "/ GB·月"},
  Rule{"/ hour", "/ 小时"},
  Rule{"([0-9]) node x ", "$1 节点 × "},
  Rule{" x ", " × "},
  Rule{"([0-9]) hours?\\b", "$1 小时"},
  Rule{"([0-9]) weeks?\\b", "$1 周"},
  Rule{"([0-9]) months?\\b", "$1 月"},
};

constexpr std::array kUnits{
  Rule{"([0-9]) days? \\(([0-9.]+) h\\)", "$1 天（$2 小时）"},
  Rule{"([0-9]) days?\\b", "$1 天"},
  Rule{"([0-9]) h\\b", "$1 小时"},
  Rule{"([0-9]) min\\b", "$1 分钟"},
  Rule{"([0-9]) s\\b", "$1 秒"},
};
// clang-format on

/// A rule table's patterns, compiled once (std::regex construction costs far more than a match).
template <std::size_t N>
std::vector<std::regex> compile(const std::array<Rule, N>& rules) {
  std::vector<std::regex> out;
  out.reserve(N);
  for (const Rule& r : rules) out.emplace_back(r.pattern);
  return out;
}

template <std::size_t N>
std::string apply(const std::array<Rule, N>& rules, const std::vector<std::regex>& compiled, std::string text,
                  bool first_only) {
  for (std::size_t i = 0; i < N; ++i) {
    const std::regex& re = compiled[i];
    if (first_only) {
      if (std::regex_search(text, re)) return std::regex_replace(text, re, rules[i].zh);
      continue;
    }
    text = std::regex_replace(text, re, rules[i].zh);
  }
  return text;
}

const std::vector<std::regex>& whole_patterns() {
  static const std::vector<std::regex> re = compile(kWhole);
  return re;
}
const std::vector<std::regex>& part_patterns() {
  static const std::vector<std::regex> re = compile(kParts);
  return re;
}
const std::vector<std::regex>& unit_patterns() {
  static const std::vector<std::regex> re = compile(kUnits);
  return re;
}

}  // namespace

std::string_view to_string(QuoteLanguage lang) { return lang == QuoteLanguage::ZhCn ? "zh-CN" : "en"; }

std::optional<QuoteLanguage> parse_quote_language(std::string_view value, std::string& error) {
  if (value == "en") return QuoteLanguage::En;
  if (value == "zh-CN" || value == "zh_CN") return QuoteLanguage::ZhCn;
  error = "'" + std::string(value) + "' is not a quote language: use en or zh-CN";
  std::string_view best;
  std::size_t best_d = 3;  // suggest only within two edits
  for (std::string_view known : {"en", "zh-CN"}) {
    const std::size_t d = units::edit_distance(value, known);
    if (d < best_d) best = known, best_d = d;
  }
  if (value.substr(0, 2) == "zh" || value.substr(0, 2) == "ZH") best = "zh-CN";
  if (!best.empty()) error += " (did you mean " + std::string(best) + "?)";
  return std::nullopt;
}

std::string_view quote_text(QuoteLanguage lang, std::string_view key) {
  const auto* it =
      std::lower_bound(kTable.begin(), kTable.end(), key, [](const Entry& e, std::string_view k) { return e.key < k; });
  FLOPCAST_ASSERT(it != kTable.end() && it->key == key, "quote_text: unknown key");
  return lang == QuoteLanguage::ZhCn ? it->zh : it->en;
}

std::string quote_money(QuoteLanguage lang, const units::Money& m) {
  if (lang != QuoteLanguage::ZhCn || m.currency.str() != "CNY") return m.str();
  const std::string a = units::Money::of_minor(m.minor < 0 ? -m.minor : m.minor, m.currency).amount_str();
  return (m.minor < 0 ? "-¥" : "¥") + a;
}

std::string quote_amount(QuoteLanguage lang, const units::Money& m) {
  return lang == QuoteLanguage::ZhCn ? quote_money(lang, m) : m.amount_str();
}

std::string quote_date(QuoteLanguage lang, const std::string& date) {
  if (lang != QuoteLanguage::ZhCn) return date;
  static const std::regex ymd("^([0-9]{4})-([0-9]{2})-([0-9]{2})$");
  static const std::regex y("^([0-9]{4})$");
  std::smatch m;
  if (std::regex_match(date, m, ymd))
    return m[1].str() + "年" + std::to_string(std::stoi(m[2].str())) + "月" + std::to_string(std::stoi(m[3].str())) +
           "日";
  if (std::regex_match(date, m, y)) return m[1].str() + "年";
  return date;
}

std::string quote_units(QuoteLanguage lang, const std::string& text) {
  return lang == QuoteLanguage::ZhCn ? apply(kUnits, unit_patterns(), text, false) : text;
}

std::string quote_phrase(QuoteLanguage lang, const std::string& text) {
  if (lang != QuoteLanguage::ZhCn) return text;
  return quote_units(lang, apply(kParts, part_patterns(), apply(kWhole, whole_patterns(), text, true), false));
}

std::string quote_provider(QuoteLanguage lang, const std::string& provider) {
  if (lang != QuoteLanguage::ZhCn) return provider;
  const auto open = provider.find('(');
  const auto close = open == std::string::npos ? open : provider.find(')', open);
  if (close == std::string::npos) return provider;
  const std::string inner = provider.substr(open + 1, close - open - 1);
  for (unsigned char c : inner)
    if (c >= 0x80) return inner;  // a name in Chinese script
  return provider;
}

}  // namespace flopcast::quote
