package embed

import (
	"context"
	"fmt"
	"sort"
)

// localCalibrationPairs are paraphrase pairs: the two sides of a pair say the
// same thing in different words, while sides of different pairs are unrelated
// (distinct topics on purpose). English and Chinese, since the documented BERT
// layout is bge-small-zh; USE-lite is English-only and uses the first set.
var localCalibrationPairs = map[string][][2]string{
	"en": {
		{"what port does postgres listen on", "the database server accepts connections on 5432"},
		{"remind me to buy milk on the way home", "pick up some milk after work"},
		{"the build fails because a dependency is missing", "compilation breaks since a required package is not installed"},
		{"my cat will not eat its food", "the kitten refuses to touch its dinner"},
		{"renew the TLS certificate before it expires", "the HTTPS cert needs replacing before the expiry date"},
		{"how do I undo the last git commit", "revert my most recent commit in git"},
		{"the meeting moved to thursday afternoon", "we rescheduled the call to thursday after lunch"},
		{"she prefers tea over coffee in the morning", "in the mornings she would rather drink tea than coffee"},
		{"the disk on the backup server is almost full", "storage on the backup machine is running out"},
		{"train tickets to the coast were sold out", "there were no seats left on trains to the seaside"},
		{"use a smaller batch size to avoid running out of memory", "reduce the batch so the GPU memory does not overflow"},
		{"the dog barks whenever the doorbell rings", "each time someone rings the bell the dog starts barking"},
	},
	"zh": {
		{"数据库监听哪个端口", "PostgreSQL 服务在 5432 端口接受连接"},
		{"回家路上记得买牛奶", "下班后去买点牛奶"},
		{"构建失败是因为缺少依赖", "编译出错，因为没有安装需要的包"},
		{"我的猫不吃东西", "小猫不肯吃晚饭"},
		{"会议改到星期四下午", "我们把会议推迟到周四午饭后"},
		{"备份服务器的磁盘快满了", "备份机器的存储空间不够了"},
		{"证书过期之前要记得续期", "HTTPS 证书到期前需要更换"},
		{"怎么撤销上一次 git 提交", "把 git 里最近的一次提交回退掉"},
		{"她早上喜欢喝茶不喝咖啡", "早晨她更愿意喝茶而不是咖啡"},
		{"去海边的火车票都卖光了", "开往海滨的列车已经没有座位"},
		{"批量太大导致显存不够用", "减小批次大小，避免 GPU 内存溢出"},
		{"门铃一响狗就叫", "每次有人按门铃，狗都会叫起来"},
	},
}

// localMeasureCalibration embeds the calibration pairs and derives the
// hybrid scorer's floor and span from them:
//
//	Floor = 90th percentile of cosines between unrelated texts (the noise
//	        floor: 9 of 10 unrelated pairs score below it; the cross pairs
//	        include same-domain texts, e.g. two technical notes, as a real
//	        memory store does, so this is a realistic floor, not an optimistic one);
//	Span  = median paraphrase cosine − Floor, clamped to [0.1, 1−Floor],
//	        so a typical paraphrase maps to a full score of 1.
func localMeasureCalibration(ctx context.Context, embed func(context.Context, []string) ([][]float32, error), langs ...string) (Calibration, error) {
	var related, unrelated []float64
	for _, lang := range langs {
		pairs := localCalibrationPairs[lang]
		var left, right []string
		for _, p := range pairs {
			left = append(left, p[0])
			right = append(right, p[1])
		}
		vecs, err := embed(ctx, append(left, right...))
		if err != nil {
			return Calibration{}, fmt.Errorf("embed: calibrate: %w", err)
		}
		n := len(pairs)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				c := localCosine(vecs[i], vecs[n+j])
				if i == j {
					related = append(related, c)
				} else {
					unrelated = append(unrelated, c)
				}
			}
		}
	}
	if len(related) == 0 {
		return Calibration{}, fmt.Errorf("embed: calibrate: no calibration pairs for %v", langs)
	}
	floor := localPercentile(unrelated, 0.90)
	span := localPercentile(related, 0.5) - floor
	span = max(0.1, min(span, 1-floor))
	return Calibration{Floor: floor, Span: span}, nil
}

// localCosine is the dot product of two L2-normalised vectors.
func localCosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// localPercentile returns the p-quantile (0..1) of xs by linear interpolation.
func localPercentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 1 {
		return s[0]
	}
	pos := p * float64(len(s)-1)
	lo := int(pos)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	return s[lo]*(1-frac) + s[lo+1]*frac
}
