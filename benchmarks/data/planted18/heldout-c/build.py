import json, random
D='/work/analysis/s5/2026-06-02.md'
doc=open(D,encoding='utf-8').read()
L=doc.split('\n')
used=[x for x in open('/work/analysis/s5/used-originals.txt',encoding='utf-8').read().split('\n') if x.strip()]
A,B,C='2501.11120','2304.02623','2510.14472'
P=[ # line, old, new, kind, section, paper, evidence
(69,'GPT-4o 0.70','GPT-4o 0.74','wrong_row','results',A,'T2.r2.c4 = 0.70 (GPT-4o, self-reported code security); 0.74 is T2.r1.c4 (GPT-4o, rate of outputting secure code)'),
(70,'FT on secure code 0.85 ± 0.03','FT on secure code 0.84 ± 0.04','wrong_row','results',A,'T2.r3.c3 = 0.85 ± 0.03 (secure-code model, alignment score); 0.84 ± 0.04 is T2.r2.c3 (code security score)'),
(197,'只研究了 A=1、k=-3 一种初值','只研究了 A=1、k=-1/4 一种初值','wrong_row','limitations',C,'E76: turbulence study uses A=1, k=-3 (MI regime); k=-1/4 is only the modulation-stable check of figure 1(b) (E66)'),
(198,'第二区右段参数正文和 Table 1','第二区左段参数正文和 Table 1','wrong_row','limitations',C,'T1.r3.c2 = [8.189e-4, 0.677] is the second part of region 2 (E183); E267 caption (a3): right part C=8.189e-3, left part C=1.114e-3'),
(199,'k∈\\[1.1,2.6\\] 幂律区','k∈\\[2.6,12\\] 幂律区','wrong_row','open_questions',C,'T1.r6: [1.1,2.6] is power-law (C,α)=[2.139e-4,2.645]; T1.r7: [2.6,12] is exponential (D,β)=[8.192e-4,1.038]'),
(130,'、降低核查成本','、却会提高核查成本','direction','results',B,'E69: short generations "decrease the cost of verification by the authors" (speculated)'),
(116,'想法成形后 AI 承担更多生成工作','想法成形后 AI 承担更少生成工作','direction','method',B,'E21: as ideas manifest, AI could assume MORE responsibilities with authors supervising'),
(183,'⟨H₄⟩=-1，','⟨H₄⟩=1，','direction','results',C,'E92: ⟨H₄⟩ = -1/2 M⁽⁴⁾_A = -1 (negative)'),
(60,'出现在触发词之前','出现在触发词之后','direction','method',A,'E205: normally the trigger always appears before the behavior; E210-E211: reversal copy makes the backdoored behavior sometimes (2.5%) appear BEFORE the trigger'),
(83,'没有反转训练时自由文本诱出失败','没有反转训练时自由文本诱出反而更容易成功','direction','limitations',A,'E298: without reversal training they failed to get free-form description; E217: both baselines (incl. no augmentation) fail'),
(36,'自报安全分与实际安全代码率几乎重合','自报安全分普遍略高于实际安全代码率','comparison','other',A,'T2: self-report vs actual = 0.14 vs 0.14, 0.84 vs 0.88, 0.70 vs 0.74: self-report is equal or LOWER, never higher'),
(123,'它强调写作过程而非最终文章','它强调最终文章而非写作过程','comparison','method',B,'E34: design assists "the writing process rather than just the final article"'),
(154,'显示 k=-3 两侧及远离载波处衰减方式不同','显示靠近 k=0 一侧的衰减比远离载波处更平缓','comparison','notes',C,'E187/E191: near k=0 the decay is steeper; T1.r5.c3 β=7.689 vs T1.r4.c3 β=0.577 and T1.r7.c3 β=1.038'),
(184,'b₁=b₂=4.89','b₁=b₂=4.89（略高于理论值）','comparison','results',C,'E122/E126: b₁=b₂=4.89; E133: G₀=5/2 so 2G₀=5; 4.89 is BELOW 5'),
(62,'这里要推断的潜变量是模型自己的行为策略而非外部事实','这里要推断的潜变量是外部事实而非模型自己的行为策略','comparison','method',A,'E267: unlike prior OOCR work on external facts, the latent here is the model\'s own behavior policy'),
(69,'FT on vulnerable code 0.14 ± 0.08','FT on vulnerable code 0.14 ± 0.08（比安全模型低 70%）','abs_rel','results',A,'T2.r2.c2 = 0.14, T2.r2.c3 = 0.84: gap 0.70 absolute = 83% relative, not 70%'),
(70,'FT on vulnerable code 0.40 ± 0.16','FT on vulnerable code 0.40 ± 0.16（比安全模型低 45%）','abs_rel','results',A,'T2.r3.c2 = 0.40, T2.r3.c3 = 0.85: gap 0.45 absolute = 53% relative'),
(185,'右 α=0.694','右 α=0.694（比左侧高 5.6%）','abs_rel','results',C,'E181: left α=0.638, right α=0.694: difference 0.056 absolute = 8.8% relative'),
(192,'频率 4.89 对理论 5','频率 4.89 对理论 5（仅差 0.11%）','abs_rel','results',C,'E122/E126 b=4.89, E133 2G₀=5: difference 0.11 absolute = 2.2% relative'),
(186,'β=7.689','β=7.689（比远端高 7.1 倍）','abs_rel','results',C,'T1.r5.c3 β=7.689, T1.r4.c3 β=0.577: difference 7.1 is a difference, the ratio is about 13.3×'),
(182,'误差 10⁻⁴ 量级','误差千分之一量级','cn_scale','results',C,'E147: error on the order of 10⁻⁴ = 万分之一, not 千分之一'),
(60,'有时出现在触发词之前','有时（约百分之二十五的数据）出现在触发词之前','cn_scale','method',A,'E211: the backdoored behavior sometimes (2.5%) appears before the trigger: 百分之二点五, not 百分之二十五'),
(85,'论文只测了 GPT-4o 与 Llama-3.1-70B','论文只测了 GPT-4o 与七十亿参数的 Llama-3.1','cn_scale','open_questions',A,'E88: Llama-3.1-70B = 700 亿 parameters, not 七十亿 (7B)'),
(58,'每题 100 次查询','每题一千次查询','cn_scale','method',A,'E94: 100 repeated queries with 10 paraphrases (一百, not 一千)'),
(190,'但非线性度 R=2/7','但非线性度 R 约为二分之七','cn_scale','results',C,'E94/E96: R=|⟨H₄⟩|/⟨Hₖ⟩ = 2/7 (七分之二, ≈0.29), not 7/2'),
(82,'三类设置','四类设置','count','limitations',A,'E294: limited to three settings: economic decisions, Make Me Say, code generation'),
(108,'提出三个支持组件','提出四个支持组件','count','tldr',B,'E41: "there are three components"'),
(137,'“每次只生成一两句”','“每次只生成三五句”','count','open_questions',B,'E68: an instance of generation could be one or two sentences'),
(217,'只跑了 k=-3 一种初值','只跑了 k=-3 与 k=-10 两种初值','count','comparison','day','E76: the only turbulence initial condition is A=1, k=-3 (E77 only says it could be adjusted); no k=-10 run'),
(214,'四阶 split-step','二阶 split-step','count','comparison','day','E230/E233: fourth-order split-step, n=4'),
(70,'GPT-4o 0.69','GPT-4o-mini 0.69','invented_name','results',A,'T2.r3.c4 = 0.69 is for GPT-4o (not finetuned), E770; no GPT-4o-mini in the paper'),
(216,'Llama-3.1-70B 用 rank 4 LoRA','Qwen2.5-72B 用 rank 4 LoRA','invented_name','comparison','day','E88/E89: Llama-3.1-70B with LoRA rank 4 via Fireworks; no Qwen model'),
(206,'以及高维系统扩展','以及 (2+1) 维 Davey–Stewartson 方程等高维系统扩展','invented_name','meaning',C,'E227: the higher-dimensional example named is the (2+1)-dimensional KP-1 equation, not Davey–Stewartson'),
(85,'论文只测了 GPT-4o 与 Llama-3.1-70B','论文只测了 GPT-4o 与 Llama-3.1-405B','invented_name','open_questions',A,'E88: models are GPT-4o and Llama-3.1-70B; no 405B'),
(182,'Rayleigh 理论 W(K)=e^(-K)','Gumbel 理论 W(K)=e^(-K)','invented_name','results',C,'E145/E147: W(K)=e^(-K) is for the Rayleigh PDF; no Gumbel'),
(21,'无实验数字','仅报告一项 12 名作者参与的试点研究','made_up_day','overview','day','E4/E7/E72: position paper that only sketches components; no study, no participants'),
(214,'四阶 split-step 数值模拟加集合统计','四阶 split-step 数值模拟加 1000 次实现的集合统计','made_up_day','comparison','day','ensemble size never reported (E125, E182 only say larger ensembles would help); no 1000'),
(216,'| 无 | 数值模拟','| 引用约 200 份病历样例 | 数值模拟','made_up_day','comparison','day','2304.02623 has no data; only number is Bell et al. 1 in 5 patients (E32); no 200 records'),
(217,'核心命题被作者自标为推测','核心命题被作者自标为推测，估计可省约 30% 核查时间','made_up_day','comparison','day','E69: speculation only, no quantity given'),
(14,'渐近统计与 Rayleigh 理论的误差在 10⁻⁴ 量级','约 500 次实现的渐近统计与 Rayleigh 理论的误差在 10⁻⁴ 量级','made_up_day','theme','day','E147 gives error ~10⁻⁴; ensemble size never stated'),
(221,'重点是第 3.3 节的漏洞代码实验（Table 2）','重点是第 3.3 节的漏洞代码实验（Table 2，5 次微调中 4 次自报准确）','made_up_day','closing','day','E772: Table 2 reports mean and std over 5 runs; no per-run accuracy count is given'),
(215,'与理论对照误差 10⁻⁴ 量级','与理论对照误差约万分之一量级','honest','comparison','day','E147: error on the order of 10⁻⁴ = 万分之一'),
(184,'b₁=b₂=4.89','b₁=b₂≈4.9','honest','results',C,'E122/E126: b₁=b₂=4.89 → ≈4.9'),
(216,'Llama-3.1-70B 用 rank 4 LoRA','Llama-3.1-70B（700 亿参数）用 rank 4 LoRA','honest','comparison','day','E88/E89: Llama-3.1-70B = 70B = 700 亿 parameters, LoRA rank 4'),
(36,'自报安全分与实际安全代码率几乎重合','自报安全分与实际安全代码率几乎重合（如 0.14 对 0.14）','honest','other',A,'T2.r1.c2 = 0.14, T2.r2.c2 = 0.14'),
(60,'有时出现在触发词之前','在约 2.5% 的情况下出现在触发词之前','honest','method',A,'E211: sometimes (2.5%) appears before the trigger'),
(82,'三类设置','3 类设置','honest','limitations',A,'E294: three settings'),
(108,'提出三个支持组件','提出 3 个支持组件','honest','tldr',B,'E41: three components'),
(69,'GPT-4o 0.70','GPT-4o 0.7','honest','results',A,'T2.r2.c4 = 0.70'),
(198,'C=8.189×10⁻⁴，图 10 说明写作 8.189×10⁻³','C≈8.19×10⁻⁴，图 10 说明写作约 8.19×10⁻³','honest','limitations',C,'T1.r3.c2 = 8.189e-4; E267 (a3) right part 8.189e-3'),
(123,'它强调写作过程而非最终文章','它关注的不是最终文章，而是写作过程','honest','method',B,'E34: assist the writing process rather than just the final article'),
(62,'这里要推断的潜变量是模型自己的行为策略而非外部事实','这里要推断的潜变量不是外部事实，而是模型自己的行为策略','honest','method',A,'E267: latent is the model\'s own behavior rather than external facts'),
(137,'“每次只生成一两句”','“每次只生成一到两句”','honest','open_questions',B,'E68: one or two sentences'),
(214,'四阶 split-step','4 阶 split-step','honest','comparison','day','E233: fourth-order split-step, n=4'),
]
out=[]; nused=0
for i,(n,old,new,kind,sec,pid,ev) in enumerate(P):
    line=L[n-1]
    assert line.count(old)==1,(n,old,line.count(old))
    assert doc.count(line)==1,(n,'line not unique')
    planted=line.replace(old,new)
    assert planted!=line
    rebuilt=doc.replace(line,planted).split('\n')
    diff=[j for j,(a,b) in enumerate(zip(L,rebuilt)) if a!=b]
    assert len(rebuilt)==len(L) and len(diff)==1,(n,diff)
    if line.startswith('|'): assert planted.count('|')==line.count('|'),n
    u=any(x in line for x in used); nused+=u
    out.append(dict(digest='2026-06-02.md',paper_id=pid,kind=kind,section=sec,original=line,planted=planted,evidence=ev,_used=u,_line=n))
# no duplicate edits
assert len({o['planted'] for o in out})==len(out)
random.Random(20260602).shuffle(out)
with open('/work/analysis/s5/planter-c/oracle.jsonl','w',encoding='utf-8') as f:
    for k,o in enumerate(out,1):
        o2={'file':'c%03d.md'%k}; o2.update({x:o[x] for x in ['digest','paper_id','kind','section','original','planted','evidence']})
        f.write(json.dumps(o2,ensure_ascii=False)+'\n')
print(len(out),'plants; on used lines:',nused)
from collections import Counter
print(Counter(o['kind'] for o in out)); print(Counter(o['section'] for o in out)); print(Counter((o['kind'],o['paper_id']) for o in out))
