"""Fits the beliefs model (``app/bots/beliefs.py``) and writes its weights.

Run: ``python -m training.beliefs_train --data training/data/beliefs.npz
--out app/bots/models/beliefs-classic4.json --checkpoint training/data/beliefs-ckpt.npz``.

Adam on minibatches of the held-in samples (``beliefs_data``) with a small L2 penalty, from zero
weights for the linear part and the output of the hidden layer (so it starts as the uniform deal)
and a fixed seed (the hidden layer's start, each epoch's order); after every epoch the weights and
the optimizer's state go to the checkpoint, and a run given an existing checkpoint resumes from it
(the same result as a run never stopped).
Prints the held-out log-loss (nats per card) of the uniform deal's shares and of the model.
Numpy only (the ``train`` extra); the weights are written as JSON for plain-Python inference.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from app.bots.beliefs import FEATURE_NAMES, N_CLASSES, N_FEATURES, N_INPUTS

Params = dict[str, np.ndarray]


def init(hidden: int, seed: int) -> Params:
    rng = np.random.default_rng(seed)
    return {
        "w": np.zeros((N_CLASSES, N_FEATURES)),
        "passer": np.zeros(52),
        "receiver": np.zeros(52),
        "w1": rng.normal(0.0, 0.5, (hidden, N_INPUTS)),
        "b1": np.zeros(hidden),
        "w2": np.zeros(hidden),
    }


def loss_grad(p: Params, d: dict[str, np.ndarray], l2: float) -> tuple[float, Params]:
    """Mean log-loss (plus the L2 penalty) and its gradient."""
    x, off, cls, card, y = d["x"], d["off"], d["cls"], d["card"], d["y"]
    xl = x[:, :, :N_FEATURES]
    w = p["w"][cls]  # n x F
    z = off + np.einsum("njf,nf->nj", xl, w)
    z += p["passer"][card][:, None] * x[:, :, 1] + p["receiver"][card][:, None] * x[:, :, 3]
    hid = np.tanh(x @ p["w1"].T + p["b1"])  # n x 3 x H
    z = z + hid @ p["w2"]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=1, keepdims=True)
    n = len(y)
    ll = -np.log(prob[np.arange(n), y] + 1e-300).mean()
    g = prob.copy()
    g[np.arange(n), y] -= 1.0
    g /= n
    gw_rows = np.einsum("nj,njf->nf", g, xl)
    gw = np.zeros_like(p["w"])
    np.add.at(gw, cls, gw_rows)
    gp = np.zeros(52)
    np.add.at(gp, card, (g * x[:, :, 1]).sum(axis=1))
    gr = np.zeros(52)
    np.add.at(gr, card, (g * x[:, :, 3]).sum(axis=1))
    gw2 = np.einsum("nj,njh->h", g, hid)
    da = g[:, :, None] * p["w2"] * (1.0 - hid**2)  # n x 3 x H
    gw1 = np.einsum("njh,nji->hi", da, x)
    gb1 = da.sum(axis=(0, 1))
    grads = {"w": gw, "passer": gp, "receiver": gr, "w1": gw1, "b1": gb1, "w2": gw2}
    reg = 0.0
    for k in p:
        reg += l2 * float((p[k] ** 2).sum())
        grads[k] = grads[k] + 2 * l2 * p[k]
    return float(ll) + reg, grads


def split(d: dict[str, np.ndarray], held: bool) -> dict[str, np.ndarray]:
    m = d["held"] == held
    return {k: v[m] for k, v in d.items()}


def save_json(p: Params, path: str, meta: dict[str, object]) -> None:
    out = {
        "features": list(FEATURE_NAMES),
        "w": [[round(float(v), 5) for v in row] for row in p["w"]],
        "passer": [round(float(v), 5) for v in p["passer"]],
        "receiver": [round(float(v), 5) for v in p["receiver"]],
        "w1": [[round(float(v), 5) for v in row] for row in p["w1"]],
        "b1": [round(float(v), 5) for v in p["b1"]],
        "w2": [round(float(v), 5) for v in p["w2"]],
        "made_by": meta,
    }
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True, help="weights (JSON)")
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--l2", type=float, default=1e-6)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--note", default="", help="what the data was (kept in the weights file)")
    args = ap.parse_args()
    data = dict(np.load(args.data))
    train, held = split(data, False), split(data, True)
    p = init(args.hidden, args.seed)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    step = 0
    epoch = 0
    if args.checkpoint and os.path.exists(args.checkpoint):
        ck = dict(np.load(args.checkpoint))
        step, epoch = int(ck["step"]), int(ck["epoch"])
        for k in p:
            p[k], m[k], v[k] = ck[k], ck["m_" + k], ck["v_" + k]
        print(f"resumed after epoch {epoch}", file=sys.stderr)
    zero = init(args.hidden, args.seed)
    base_held, _ = loss_grad(zero, held, 0.0)
    c0 = time.process_time()
    b1, b2 = 0.9, 0.999
    n = len(train["y"])
    while epoch < args.epochs:
        order = np.random.default_rng(args.seed * 1000 + epoch).permutation(n)
        total = 0.0
        for lo in range(0, n, args.batch):
            idx = order[lo : lo + args.batch]
            loss, g = loss_grad(p, {k: a[idx] for k, a in train.items()}, args.l2)
            total += loss * len(idx)
            step += 1
            for k in p:
                m[k] = b1 * m[k] + (1 - b1) * g[k]
                v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
                mh = m[k] / (1 - b1**step)
                vh = v[k] / (1 - b2**step)
                p[k] = p[k] - args.lr * mh / (np.sqrt(vh) + 1e-8)
        epoch += 1
        held_loss, _ = loss_grad(p, held, 0.0)
        print(
            f"epoch {epoch}: train {total / max(n, 1):.5f}  held-out {held_loss:.5f} "
            f"(uniform {base_held:.5f})  {time.process_time() - c0:.1f} s CPU",
            file=sys.stderr,
            flush=True,
        )
        if args.checkpoint:
            ck_out = {"step": np.array(step), "epoch": np.array(epoch)}
            for k in p:
                ck_out[k], ck_out["m_" + k], ck_out["v_" + k] = p[k], m[k], v[k]
            np.savez(args.checkpoint, **ck_out)  # type: ignore[arg-type]
    held_loss, _ = loss_grad(p, held, 0.0)
    meta = {
        "command": " ".join(["python -m training.beliefs_train"] + sys.argv[1:]),
        "data": args.note,
        "train_samples": int(len(train["y"])),
        "held_out_samples": int(len(held["y"])),
        "epochs": epoch,
        "held_out_logloss": round(held_loss, 5),
        "held_out_logloss_uniform": round(base_held, 5),
    }
    save_json(p, args.out, meta)
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
