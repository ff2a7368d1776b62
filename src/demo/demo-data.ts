/** The demo shop's data, served by its MCP server (src/demo/demo-mcp-server.ts). */
export interface DemoOrder {
  status: 'processing' | 'shipped' | 'out_for_delivery' | 'delivered' | 'cancelled';
  items: string[];
  expectedDelivery?: string;
}

export const DEMO_ORDERS: Record<string, DemoOrder> = {
  'A-1001': { status: 'delivered', items: ['Linen duvet cover', 'Two pillowcases'] },
  'A-1002': { status: 'shipped', items: ['Ceramic teapot'], expectedDelivery: 'Thursday' },
  'A-1003': { status: 'processing', items: ['Oak side table'], expectedDelivery: 'next Monday' },
  'A-1004': { status: 'out_for_delivery', items: ['Wool throw', 'Candle set'], expectedDelivery: 'today' },
  'A-1005': { status: 'cancelled', items: ['Floor lamp'] },
};

export type DemoDay = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';

export const DEMO_STORE_HOURS: Record<DemoDay, string> = {
  monday: '9:00 to 18:00',
  tuesday: '9:00 to 18:00',
  wednesday: '9:00 to 18:00',
  thursday: '9:00 to 20:00',
  friday: '9:00 to 20:00',
  saturday: '10:00 to 16:00',
  sunday: 'closed',
};
