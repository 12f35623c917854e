/**
 * The page's DOM, kept apart from the training code: a status line, the loss curve as an SVG
 * polyline (redrawn each step; at most a few hundred points), an epoch table and an error box.
 * Every element is looked up by id in index.html; a missing one is skipped, never an error.
 */
import type { EpochResult } from './train.js';

const byId = (id: string): HTMLElement | null => document.getElementById(id);

export function setStatus(text: string): void {
  const el = byId('status');
  if (el !== null) el.textContent = text;
}

export function showError(text: string): void {
  const el = byId('error');
  if (el === null) return;
  el.textContent = text;
  el.hidden = false;
}

/** The loss per step, on a y axis from 0 to the largest loss seen. */
export function drawLoss(losses: readonly number[]): void {
  const line = byId('loss-line');
  const label = byId('loss-max');
  if (line === null || losses.length === 0) return;
  const w = 600;
  const h = 200;
  const top = Math.max(...losses, 1e-6);
  const dx = losses.length > 1 ? w / (losses.length - 1) : 0;
  const points = losses.map((l, i) => `${(i * dx).toFixed(1)},${(h - (l / top) * h).toFixed(1)}`);
  line.setAttribute('points', points.join(' '));
  if (label !== null) label.textContent = top.toFixed(2);
}

export function addEpochRow(e: EpochResult): void {
  const body = byId('epochs');
  if (body === null) return;
  const row = document.createElement('tr');
  for (const text of [
    String(e.epoch),
    e.meanLoss.toFixed(4),
    `${(e.valAccuracy * 100).toFixed(1)}%`,
    `${(e.ms / 1000).toFixed(1)} s`,
  ]) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  body.append(row);
}
