import { expect, test } from '@playwright/test';
import { expectAccessible, newEmail, signIn } from './support';

test('filter voices and play a preview in the page (the audio loads with a duration > 0)', async ({
  page,
}) => {
  await signIn(page, newEmail('voices'), '/console/voices');
  await expect(page.getByRole('heading', { name: 'Voices', level: 1 })).toBeVisible();
  await expect(page.getByTestId('voice-espeak-en-us-aria')).toBeVisible();
  await expectAccessible(page, 'voices');

  await page.getByRole('combobox', { name: 'Gender' }).selectOption('male');
  await expect(page.getByTestId('voice-espeak-en-us-miles')).toBeVisible();
  await expect(page.getByTestId('voice-espeak-en-us-aria')).toHaveCount(0);
  await expect(page.locator('article').getByText(/^(female|neutral)$/)).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Gender' }).selectOption('female');

  const card = page.getByTestId('voice-espeak-en-us-aria');
  await card.getByLabel('Preview text for Aria').fill('Hello from the console test.');
  await card.getByRole('button', { name: 'Play preview' }).click();
  const audio = card.locator('audio');
  await expect(audio).toBeVisible({ timeout: 30_000 });
  expect(await audio.getAttribute('src')).toMatch(/^data:audio\/[a-z0-9.+-]+;base64,/);
  const duration = await audio.evaluate(
    (el) =>
      new Promise<number>((resolve, reject) => {
        const media = el as unknown as {
          readyState: number;
          duration: number;
          addEventListener(type: string, listener: () => void): void;
        };
        if (media.readyState >= 1) resolve(media.duration);
        media.addEventListener('loadedmetadata', () => resolve(media.duration));
        media.addEventListener('error', () => reject(new Error('the preview audio did not load')));
      }),
  );
  expect(duration).toBeGreaterThan(0.3);
  await expect(card).toContainText('Hello from the console test.');
  await expectAccessible(page, 'voices with a preview');
});
