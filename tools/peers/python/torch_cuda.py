"""PyTorch peer of packages/cuda-native/bench/run.ts on the same GPU: prints one JSON line of
median milliseconds per workload (sgemm, sgemm_tf32, conv2d, add_64M, train_mlp, train_lenet), or
{"skipped": reason} when torch or a CUDA device is missing. TF32 is off except for sgemm_tf32, so
float32 results are comparable with the @mx defaults."""
import json
import sys
import time


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def timed(fn, iters, reps=7):
    import torch
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) * 1000 / iters)
    return median(out)


def main():
    only = [k for k in (sys.argv[1] if len(sys.argv) > 1 else '').split(',') if k]
    want = lambda k: not only or k in only or k.split('_')[0] in only
    try:
        import torch
    except ImportError as e:
        print(json.dumps({'skipped': f'torch not importable: {e}'}))
        return
    if not torch.cuda.is_available():
        print(json.dumps({'skipped': 'torch sees no CUDA device'}))
        return
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device('cuda:0')
    res = {}
    if want('sgemm'):
        a = torch.rand(4096, 4096, device=dev) * 2 - 1
        for tf32 in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            res['sgemm_tf32' if tf32 else 'sgemm'] = timed(lambda: torch.mm(a, a), 10)
        torch.backends.cuda.matmul.allow_tf32 = False
    if want('conv'):
        x = torch.rand(32, 64, 56, 56, device=dev)
        w = torch.rand(64, 64, 3, 3, device=dev)
        res['conv2d'] = timed(lambda: torch.nn.functional.conv2d(x, w, padding=1), 5)
    if want('add'):
        a = torch.rand(64 << 20, device=dev)
        b = torch.rand(64 << 20, device=dev)
        res['add_64M'] = timed(lambda: a + b, 10)
    for net in ('mlp', 'lenet'):
        if not want(net):
            continue
        F = torch.nn.functional
        if net == 'mlp':
            model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                        torch.nn.ReLU(), torch.nn.Linear(512, 10)).to(dev)
            x = torch.rand(128, 784, device=dev) * 2 - 1
            y = torch.arange(128, device=dev) % 10
        else:
            model = torch.nn.Sequential(torch.nn.Conv2d(1, 6, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                        torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                        torch.nn.Flatten(), torch.nn.Linear(256, 120), torch.nn.ReLU(),
                                        torch.nn.Linear(120, 84), torch.nn.ReLU(), torch.nn.Linear(84, 10)).to(dev)
            x = torch.rand(64, 1, 28, 28, device=dev) * 2 - 1
            y = torch.arange(64, device=dev) % 10
        opt = torch.optim.SGD(model.parameters(), lr=0.05)

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss.item()

        res[f'train_{net}'] = timed(step, 1, 21)
    print(json.dumps(res))


main()
